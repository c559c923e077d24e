-- syntax: single/double quoted strings are equivalent
print("double", 'single', "it's", 'say "hi"')
print("a" == 'a', "\"" == '"', '\'' == "'")
print(#"", #'', "" == '')
print("tab\there", 'new\nline')
