/* Closes stdout and stderr and reuses descriptors 1 and 2 for data files
 * (issue 22 item 4): the runtime's messages (here: the trace cannot be
 * written, at exit) must not land in them. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  printf("start\n");
  fflush(stdout);
  close(1);
  close(2);
  int a = open("other.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644); /* fd 1 */
  int b = open("data.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);  /* fd 2 */
  for (int i = 0; i < 4; i++) {
    write(b, "application bytes\n", 18);
    write(a, "other\n", 6);
  }
  return (a == 1 && b == 2) ? 0 : 3;
}
