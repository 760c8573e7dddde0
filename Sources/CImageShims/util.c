#include <stdlib.h>

#include "cimageshims.h"

void gps_free(void *pointer) { free(pointer); }
