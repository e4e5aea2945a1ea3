/* Pangea: the OpenSHMEM 1.6 profiling interface (§3.14).
 *
 * Every shmem_ function of shmem.h also exists as pshmem_ with the same prototype. Types and
 * constants come from shmem.h. The C11 generic names have no pshmem_ form, and the 7 legacy
 * names without the shmem_ prefix (start_pes, _my_pe, ...) have no pshmem_ twin. */
#ifndef PANGEA_PSHMEM_H
#define PANGEA_PSHMEM_H

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PANGEA_NAME(s) PANGEA_PASTE(pshmem_, s)
#include "pangea_shmem_decls.h"
#undef PANGEA_NAME

#ifdef __cplusplus
}
#endif

#endif /* PANGEA_PSHMEM_H */
