#include <unistd.h>
static inline void put_header(int fd, const char *b) { write(fd, b, 1); }
