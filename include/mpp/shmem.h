/* Pangea: the deprecated <mpp/shmem.h> location (still required, Annex F). */
#include "../shmem.h"
