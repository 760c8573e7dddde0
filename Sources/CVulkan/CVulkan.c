// The module exports header-only declarations; this file keeps SwiftPM happy.
#include "CVulkan.h"
