// Standard error pointed at /dev/null around calls into libraries that print there on bad
// input with no switch to stop it: libde265 ("SPS error: CB alignment", seen when decoding a
// fixture HEIC with one byte changed), and libheif (std::cerr), dav1d and aom, which import
// fprintf too. libwebp, libpng and libjpeg (with our handlers) print nothing.
//
// The redirection is process-wide: a line another thread writes to stderr during a HEIF
// decode (one to two seconds at 48 MP) is lost. Calls nest and may overlap across threads: the
// first begin redirects, the last end restores.
#ifndef GPS_QUIET_STDERR_H
#define GPS_QUIET_STDERR_H

void gps_quiet_stderr_begin(void);
void gps_quiet_stderr_end(void);

#endif
