-- strings: %x %X %o with flags, negative values as 64-bit two's complement
print(string.format("%x|%X|%o", 255, 255, 8))
print(string.format("%#x|%#X|%#o", 255, 255, 8))
print(string.format("%08x|%-8X|%8o|", 48879, 48879, 511))
print(string.format("%x", -1), string.format("%X", math.mininteger), string.format("%o", -1))
print(string.format("%.4x|%#.4x", 10, 10))
print(string.format("%x", 0), string.format("%#x", 0), string.format("%#o", 0))
