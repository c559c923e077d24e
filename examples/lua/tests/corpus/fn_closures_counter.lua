-- functions: closures keep private state
local function counter(start, step)
  local n = start or 0
  return function() n = n + (step or 1); return n end
end
local c1 = counter()
local c2 = counter(100, 10)
print(c1(), c1(), c1(), c2(), c2(), c1())
local function make_account(balance)
  return {
    deposit = function(v) balance = balance + v; return balance end,
    withdraw = function(v)
      if v > balance then return nil, "insufficient funds" end
      balance = balance - v
      return balance
    end,
    balance = function() return balance end,
  }
end
local acc = make_account(50)
print(acc.deposit(25), acc.withdraw(100), acc.withdraw(30), acc.balance())
