-- numbers: number-to-string conversion in concatenation
print(1 .. "", 1.0 .. "", -0.0 .. "", 0.1 .. "", 1e15 .. "", 1e16 .. "")
print(2^63 .. "", math.mininteger .. "", 1/0 .. "", -1/0 .. "")
print(3 .. 4, 3.5 .. 4, 12 .. "" == "12")
print(#(123456 .. ""), #(1.5 .. ""))
print(100 // 1 .. "|" .. 100 / 1)
