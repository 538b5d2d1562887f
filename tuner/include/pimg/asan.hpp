// PIMG_ASAN is 1 in a build with AddressSanitizer (GCC's __SANITIZE_ADDRESS__ or Clang's feature test), else 0:
// for the few places that must do otherwise under it (its heap checks, its stack use).
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define PIMG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PIMG_ASAN 1
#endif
#endif
#ifndef PIMG_ASAN
#define PIMG_ASAN 0
#endif
