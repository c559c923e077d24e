-- syntax: identifiers: underscores, digits, case sensitivity, keyword-like names
local _ = "underscore"
local _x1 = 1
local X, x = "upper", "lower"
local a_very_long_identifier_name_that_keeps_going_and_going = 42
local And, Or, Nil, END = 1, 2, 3, 4
print(_, _x1, X, x, a_very_long_identifier_name_that_keeps_going_and_going)
print(And + Or + Nil + END)
local t = {["end"] = "e", ["if"] = "i", ["nil"] = "n"}
print(t["end"], t["if"], t["nil"])
local __index = "not special as a local"
print(__index)
