#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer (its LLVMFuzzerRunDriver) on `test`, with the program's arguments.
/// SwiftPM links an executable's `main` to `<module>_main`, so libFuzzer's own `main`
/// is not the entry point: each target's `<module>_main` calls this instead.
int cw_fuzz_run(int argc, char **argv, int (*test)(const uint8_t *data, size_t size));

#endif
