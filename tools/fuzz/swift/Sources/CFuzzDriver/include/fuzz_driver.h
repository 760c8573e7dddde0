// C support for the Swift fuzz targets.
#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's entry point for programs that keep their own main() (compiler-rt's
// FuzzerInterface.h documents it). SwiftPM gives every executable its own main, so the Swift
// fuzz targets start libFuzzer from main.swift instead of linking libFuzzer's main.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size));

// memfd_create(2) (Glibc's Swift module does not export it): a file in memory, or -1.
int fuzz_memory_file(const char *name);

#endif
