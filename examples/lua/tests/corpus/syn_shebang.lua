#!/usr/bin/env lua5.4
-- syntax: a first line starting with '#' is skipped by the loader
print("shebang skipped")
print(1 + 1)
