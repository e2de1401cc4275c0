/* A host program for the privileged-process test (guest_files_test.py):
 * loads the rockpool object named by argv[1] with dlopen (a setuid program
 * ignores LD_PRELOAD outside the trusted directories, dlopen of an absolute
 * path it does not) and exits. Made setuid root by the test and run by
 * another user, its process is AT_SECURE; it prints that value, so the
 * test knows which case it ran. */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/auxv.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: secure_host OBJECT\n");
    return 2;
  }
  if (dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) == NULL) {
    fprintf(stderr, "secure_host: %s\n", dlerror());
    return 1;
  }
  printf("AT_SECURE=%lu\n", getauxval(AT_SECURE));
  return 0;
}
