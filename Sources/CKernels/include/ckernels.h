#pragma once
int gs_ckernels_version(void);
