// memfd_create is a GNU extension of <sys/mman.h>.
#define _GNU_SOURCE
#include <sys/mman.h>

#include "fuzz_driver.h"

int fuzz_memory_file(const char *name) { return memfd_create(name, 0); }
