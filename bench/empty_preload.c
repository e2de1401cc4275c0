// A shared object that does nothing: bench/fixed_cost.py preloads it as a
// control, so that its table can tell what any preloaded object adds to a
// process (the loader's work, a shifted heap and stack) from what
// librockpool_preload.so adds. One function, so that the object has code.
int rockpool_empty_preload(void) { return 0; }
