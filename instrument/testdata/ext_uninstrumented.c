// Compiled WITHOUT the plugin: an uninstrumented library.
double ext_twice(double v) { return 2 * v; }
double ext_apply(double (*f)(double), double v) { return f(v) + 1; }
