-- helper module (not a program): returns nothing, so require yields true
noreturn_module_ran = true
