/* The exit line of the preloaded malloc counter (libmalloc_counter.so, the
 * measure scripts' LD_PRELOAD): at exit it appends
 *   malloc_calls=<n> malloc_bytes=<n>
 * to the file $MALLOC_COUNTER_OUT names, which the scripts read with sed.
 *
 * A preloaded object is a guest in its host: nothing is written unless
 * asked (no variable, no line), the variable is ignored in a privileged
 * process (secure_getenv), no symbolic link is followed, and the file is
 * appended to only when it is a regular file of this process's user (a
 * measure script runs several processes into one file: the first creates
 * it). Any failure is silent: the host's exit is never disturbed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/process/malloc_counter.h"

static void append_line(const char* path, const char* line, size_t len) {
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()) {
    const ssize_t written = write(fd, line, len);
    (void)written; /* nowhere to report it */
  }
  close(fd);
}

__attribute__((destructor)) static void rockpool_malloc_counter_exit_report(void) {
  const char* path = secure_getenv("MALLOC_COUNTER_OUT");
  if (path == NULL || *path == '\0') return;
  struct rockpool_malloc_counts counts;
  rockpool_malloc_counts_read(&counts);
  char line[96];
  const int len =
      snprintf(line, sizeof(line), "malloc_calls=%" PRIu64 " malloc_bytes=%" PRIu64 "\n",
               counts.calls, counts.bytes);
  if (len > 0 && (size_t)len < sizeof(line)) append_line(path, line, (size_t)len);
}
