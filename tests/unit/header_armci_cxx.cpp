// The ARMCI headers compile as C++ (-pedantic) and declare C linkage: a C++ program links the
// ARMCI and message calls from libpangea.
#include <armci.h>
#include <armcix.h>
#include <message.h>

#include <cstdio>

int main(int argc, char **argv)
{
    if (argc > 100) { // never run: linking is the test
        ARMCI_Init_args(&argc, &argv);
        armci_hdl_t handle;
        ARMCI_INIT_HANDLE(&handle);
        int value = 0;
        armci_msg_igop(&value, 1, const_cast<char *>("+"));
        ARMCIX_Progress();
        ARMCI_Finalize();
    }
    std::printf("PASS header_armci_cxx\n");
    return 0;
}
