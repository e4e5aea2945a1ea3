/* What a user is told without asking (no SHMEM_DEBUG), read back from this PE's stderr:
 * - an environment variable starting with SHMEM_ or PANGEA_ that Pangea does not know is named
 *   at shmem_init with the closest known name (the list sets SHMEM_SYMETRIC_SIZE and
 *   PANGEA_SPIN_CONT), and known ones (PANGEA_MPICC, a wrapper's) are not;
 * - a shmem_malloc, shmem_calloc or shmem_align the heap cannot serve returns NULL, and the first
 *   one on PE 0 says why: the bytes asked, the bytes free, the heap's maximum and the variable
 *   to raise (PANGEA_SYMMETRIC_MAX: the heap grows up to it); later ones say nothing;
 * - a heap larger than the node can back (memory / PEs of the node; the list sets 1T) is a
 *   warning at init on PE 0 naming both numbers, when TEST_EXPECT_BACKING_WARNING=1, and no
 *   such warning otherwise. */
#include "check.h"

#include <unistd.h>

/* Runs the calls between capture_begin and capture_end with fd 2 going to a temporary file, and
 * returns what they wrote there. */
static FILE *capture_file;
static int saved_stderr = -1;

static void capture_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    saved_stderr = dup(2);
    if (!capture_file || saved_stderr < 0 || dup2(fileno(capture_file), 2) < 0) {
        fprintf(stderr, "user_messages: cannot redirect stderr\n");
        exit(1);
    }
}

static void capture_end(char *text, size_t size)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(capture_file);
    size_t n = fread(text, 1, size - 1, capture_file);
    text[n] = '\0';
    fclose(capture_file);
}

int main(void)
{
    static char text[8192];
    capture_begin();
    shmem_init();
    capture_end(text, sizeof text);
    int me = shmem_my_pe();
    int misspelled = getenv("SHMEM_SYMETRIC_SIZE") != NULL;
    int unbacked = getenv("TEST_EXPECT_BACKING_WARNING") != NULL;
    if (me == 0) {
        CHECK(!unbacked == !strstr(text, "is more than this node can back"),
              "the unbacked-heap warning is %s: %s", unbacked ? "missing" : "there", text);
    }
    if (me == 0 && misspelled) {
        CHECK(strstr(text, "SHMEM_SYMETRIC_SIZE") && strstr(text, "closest: SHMEM_SYMMETRIC_SIZE"),
              "no warning naming SHMEM_SYMETRIC_SIZE and SHMEM_SYMMETRIC_SIZE in: %s", text);
        CHECK(strstr(text, "PANGEA_SPIN_CONT") && strstr(text, "closest: PANGEA_SPIN_COUNT"),
              "no warning naming PANGEA_SPIN_CONT and PANGEA_SPIN_COUNT in: %s", text);
        CHECK(!strstr(text, "PANGEA_MPICC"), "a known variable was warned about: %s", text);
    } else if (me != 0) {
        CHECK(!strstr(text, "SHMEM_SYMETRIC_SIZE") && !strstr(text, "can back"),
              "PE %d warned too: %s", me, text);
    }

    size_t too_big = (size_t)1 << 50;
    capture_begin();
    void *a = shmem_malloc(too_big);
    capture_end(text, sizeof text);
    CHECK(a == NULL, "shmem_malloc of 2^50 bytes returned %p", a);
    if (me == 0)
        CHECK(strstr(text, "shmem_malloc: cannot allocate 1125899906842624 bytes") &&
                  strstr(text, "bytes free") && strstr(text, "beyond its maximum") &&
                  strstr(text, "raise PANGEA_SYMMETRIC_MAX"),
              "the failure was not explained: '%s'", text);
    else
        CHECK(text[0] == '\0', "PE %d explained too: '%s'", me, text);

    capture_begin();
    void *b = shmem_calloc(too_big, 1);
    void *c = shmem_align(4096, too_big);
    capture_end(text, sizeof text);
    CHECK(b == NULL && c == NULL, "shmem_calloc/shmem_align of 2^50 bytes returned %p %p", b, c);
    CHECK(text[0] == '\0', "a second failure was explained again: '%s'", text);

    /* The heap still serves what fits. */
    long *ok = shmem_malloc(sizeof *ok);
    CHECK(ok != NULL, "shmem_malloc of 8 bytes failed after the failures");
    shmem_free(ok);
    int status = check_finish();
    shmem_finalize();
    return status;
}
