/* Forced include (-include) of the binary-compatibility builds of tests/armci: the ARMCI
 * declarations must come from Debian's ARMCI-MPI header, which lacks Pangea's additions. */
#include <armci.h>
#ifdef ARMCI_MAX_STRIDE_LEVEL
#error "this build must use Debian's /usr/include/armci.h, not Pangea's"
#endif
