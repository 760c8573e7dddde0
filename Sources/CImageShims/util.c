#include <stdlib.h>

#include "cimageshims.h"

void gps_free(void *pointer) { free(pointer); }

int gps_can_allocate(size_t bytes) {
    // Through a volatile pointer: a malloc whose result is only freed may be removed by the
    // optimizer (and assumed to succeed), which would make this probe always say yes.
    void *volatile block = malloc(bytes);
    if (block == NULL) return 0;
    free(block);
    return 1;
}
