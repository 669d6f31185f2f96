/* Test library: a perfectly good shared object that is not an mcph plugin (no mcph_plugin_entry). */
int mcph_test_not_a_plugin(void);
int mcph_test_not_a_plugin(void) { return 42; }
