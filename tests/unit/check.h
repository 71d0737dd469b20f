/* Minimal test harness: every CHECK prints one PASS or FAIL line; the
 * runner (tests/run.sh) counts them and prints "N passed, N failed". */
#ifndef AFMT_TEST_CHECK_H
#define AFMT_TEST_CHECK_H
#include <stdio.h>

static int check_failures;

#define CHECK(name, cond)                                                   \
    do {                                                                    \
        if (cond) {                                                         \
            printf("PASS %s\n", (name));                                    \
        } else {                                                            \
            printf("FAIL %s: %s (%s:%d)\n", (name), #cond, __FILE__, __LINE__); \
            check_failures++;                                               \
        }                                                                   \
    } while (0)

#define CHECK_DONE() return check_failures ? 1 : 0
#endif
