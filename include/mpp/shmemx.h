/* Pangea: the deprecated <mpp/shmemx.h> location (still required, Annex F). */
#include "../shmemx.h"
