/* Argument checking with SHMEM_DEBUG=1: PE 0 makes the bad call named by TEST_BAD while the
 * other PEs wait in shmem_barrier_all. The library must stop the whole job with a message that
 * names the call and the argument (list lines: expect=fail:REGEX). If the call returns, the
 * test says so and exits 0, which the list counts as a failure.
 *
 *   pe_range      shmem_putmem to PE npes                 shmem_putmem ... pe
 *   pe_negative   shmem_long_p to PE -1                   shmem_long_p ... pe
 *   get_pe_range  shmem_getmem from PE npes               shmem_getmem ... pe
 *   stack_dest    shmem_putmem into a stack array         shmem_putmem ... dest
 *   malloc_dest   shmem_putmem into malloc() memory       shmem_putmem ... dest
 *   bounds        200-byte shmem_putmem into a 100-byte shmem_malloc block
 *   null_source   shmem_putmem from NULL, nelems 16       shmem_putmem ... source
 *   amo_nonsym    shmem_long_atomic_fetch_add on a stack variable
 *   wait_null     shmem_long_wait_until on a NULL ivar
 *   static_bounds        after a put of exactly 4 longs into `static long x[4]` (file scope),
 *                        one of 8                          shmem_long_put ... static object
 *   static_local_bounds  after a put of the last 2 longs of a function's `static long y[4]`,
 *                        one of 3 from the same place      shmem_long_put ... static object
 *   align_zero    shmem_align(0, 64): 0 is not a power of two (1 is the smallest valid value)
 *   align_three   shmem_align(3, 64): the first invalid value above 1, 2
 *   ckpt_dir_null       shmemx_checkpoint(NULL)        (checked always, like the rest of
 *   ckpt_register_null  shmemx_ckpt_register(NULL, 16)  the checkpoint calls' arguments)
 *   ckpt_resume         shmemx_ckpt_resume without a quiesce
 *   pcntr_target_null   shmemx_pcntr_get_completed_target(NULL)
 *   amo_pe_range  shmem_long_atomic_add to PE npes   (without SHMEM_DEBUG: the engine's error)
 *
 * TEST_PROFILE=1 profiles the job (PANGEA_PROFILE, a scratch directory removed once init has
 * checked it, since these jobs end before anything is written): an operation to a PE out of
 * range must still stop with its error, with or without SHMEM_DEBUG, and not be counted into
 * memory outside the profile's counters (the sanitizer build sees such a write). */
#include "check.h"

#include <shmemx.h>
#include <unistd.h>

static long static_four[4];

int main(void)
{
    char profile[] = "/tmp/pangea-bad-input.XXXXXX";
    const char *test_profile = getenv("TEST_PROFILE");
    int profiled = test_profile && strcmp(test_profile, "1") == 0;
    if (profiled) {
        if (!mkdtemp(profile))
            return perror("mkdtemp"), 1;
        setenv("PANGEA_PROFILE", profile, 1);
    }
    shmem_init();
    if (profiled)
        rmdir(profile);
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    const char *mode = getenv("TEST_BAD");
    char *block = shmem_malloc(100);
    char src[256] = {0};
    shmem_barrier_all();
    if (me == 0) {
        char stack_buf[256];
        long stack_long = 0;
        void *aligned = NULL; /* a collective call, answered by the others' barrier */
        char *private_buf = malloc(256);
        static long local_four[4];
        long longs[8] = {0};
        if (!mode)
            mode = "(unset)";
        if (strcmp(mode, "pe_range") == 0)
            shmem_putmem(block, src, 8, npes);
        else if (strcmp(mode, "pe_negative") == 0)
            shmem_long_p((long *)(void *)block, 1, -1);
        else if (strcmp(mode, "get_pe_range") == 0)
            shmem_getmem(src, block, 8, npes);
        else if (strcmp(mode, "amo_pe_range") == 0)
            shmem_long_atomic_add((long *)(void *)block, 1, npes);
        else if (strcmp(mode, "stack_dest") == 0)
            shmem_putmem(stack_buf, src, 8, right);
        else if (strcmp(mode, "malloc_dest") == 0)
            shmem_putmem(private_buf, src, 8, right);
        else if (strcmp(mode, "bounds") == 0)
            shmem_putmem(block, src, 200, right);
        else if (strcmp(mode, "null_source") == 0)
            shmem_putmem(block, NULL, 16, right);
        else if (strcmp(mode, "amo_nonsym") == 0)
            stack_long = shmem_long_atomic_fetch_add(&stack_long, 1, right);
        else if (strcmp(mode, "wait_null") == 0)
            shmem_long_wait_until(NULL, SHMEM_CMP_EQ, 1);
        else if (strcmp(mode, "static_bounds") == 0) {
            shmem_long_put(static_four, longs, 4, right);
            shmem_long_put(static_four, longs, 8, right);
        } else if (strcmp(mode, "static_local_bounds") == 0) {
            shmem_long_put(local_four + 2, longs, 2, right);
            shmem_long_put(local_four + 2, longs, 3, right);
        } else if (strcmp(mode, "align_zero") == 0) {
            aligned = shmem_align(0, 64);
        } else if (strcmp(mode, "align_three") == 0) {
            aligned = shmem_align(3, 64);
        } else if (strcmp(mode, "ckpt_dir_null") == 0) {
            shmemx_checkpoint(NULL);
        } else if (strcmp(mode, "ckpt_register_null") == 0) {
            shmemx_ckpt_register(NULL, 16);
        } else if (strcmp(mode, "ckpt_resume") == 0) {
            shmemx_ckpt_resume();
        } else if (strcmp(mode, "pcntr_target_null") == 0) {
            shmemx_pcntr_get_completed_target(NULL);
        } else {
            fprintf(stderr, "TEST_BAD=%s: unknown mode\n", mode);
            shmem_global_exit(2);
        }
        fprintf(stderr, "TEST_BAD=%s: the bad call returned: not detected\n", mode);
        free(private_buf);
        (void)stack_long;
        (void)aligned;
    }
    shmem_barrier_all();
    shmem_free(block);
    shmem_finalize();
    return 0;
}
