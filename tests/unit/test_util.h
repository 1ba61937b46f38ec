/* Shared by the cmocka unit tests. */
#ifndef LDX_TEST_UTIL_H
#define LDX_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#endif
