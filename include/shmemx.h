/* Pangea: OpenSHMEM extensions (§0: shmemx.h must exist even when empty). */
#ifndef PANGEA_SHMEMX_H
#define PANGEA_SHMEMX_H

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Extensions use the shmemx_ prefix. None so far. */

#ifdef __cplusplus
}
#endif

#endif /* PANGEA_SHMEMX_H */
