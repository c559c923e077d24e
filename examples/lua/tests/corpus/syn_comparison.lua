-- syntax: relational operators across types
print(1 == 1.0, "1" == 1, 1 ~= 2, "a" ~= "a")
print(1 < 2, 2 <= 2, 3 > 4, 4 >= 4)
print("a" < "b", "abc" < "abd", "Z" < "a", "" < "a", "a" < "aa")
print(true == true, false ~= nil, nil == nil)
local t1, t2 = {}, {}
print(t1 == t2, t1 == t1, t1 ~= t2)
local f = print
print(f == print, function() end == function() end)
print(-0.0 == 0.0, 0/0 == 0/0, 0/0 ~= 0/0)
print(1 < 1.5, 2.5 > 2, -1 < -0.5)
print(math.huge > math.maxinteger, -math.huge < math.mininteger)
print("10" < "9", 10 < 9)
