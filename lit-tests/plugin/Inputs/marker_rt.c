/* A test runtime for the siotrace plugin: implements the ABI of
 * runtime/include/sio/siotrace_abi.h by printing one line per marker, with
 * ids resolved through the registered tables so that tests can check them by
 * name and line:
 *   site <callee> <function>:<line>:<col> loop=<function>:<line>|none
 *   enter|iter|exit <function>:<line>
 * With MARKER_RT_TABLES=1 it also prints every registered table entry:
 *   table site <id> <callee> <file>:<line>:<col> <function> loop=<id>
 *   table loop <id> <file>:<line>:<col> <function> parent=<id>
 * Output goes through write(2) on fd 1, unbuffered, so it interleaves with
 * nothing. Compiled without the plugin. */
#include "sio/siotrace_abi.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_TABLES 64
static struct {
  const SioSiteDesc *sb, *se;
  const SioLoopDesc *lb, *le;
} tables[MAX_TABLES];
static int ntables;

static const SioLoopDesc *find_loop(uint64_t id) {
  for (int t = 0; t < ntables; t++)
    for (const SioLoopDesc *l = tables[t].lb; l && l < tables[t].le; l++)
      if (l->id == id)
        return l;
  return NULL;
}

static const SioSiteDesc *find_site(uint64_t id) {
  for (int t = 0; t < ntables; t++)
    for (const SioSiteDesc *s = tables[t].sb; s && s < tables[t].se; s++)
      if (s->id == id)
        return s;
  return NULL;
}

void __sio_register_tables(uint32_t abi, const SioSiteDesc *sb,
                           const SioSiteDesc *se, const SioLoopDesc *lb,
                           const SioLoopDesc *le) {
  if (abi != SIO_ABI_VERSION) {
    dprintf(1, "bad abi %u\n", abi);
    return;
  }
  if (ntables < MAX_TABLES) {
    tables[ntables].sb = sb;
    tables[ntables].se = se;
    tables[ntables].lb = lb;
    tables[ntables].le = le;
    ntables++;
  }
  const char *e = getenv("MARKER_RT_TABLES");
  if (!e || *e != '1')
    return;
  for (const SioSiteDesc *s = sb; s && s < se; s++)
    dprintf(1, "table site %016llx %s %s:%u:%u %s loop=%016llx\n",
            (unsigned long long)s->id, s->callee, s->file, s->line, s->column,
            s->function, (unsigned long long)s->loop_id);
  for (const SioLoopDesc *l = lb; l && l < le; l++)
    dprintf(1, "table loop %016llx %s:%u:%u %s parent=%016llx\n",
            (unsigned long long)l->id, l->file, l->line, l->column,
            l->function, (unsigned long long)l->parent_id);
}

static void loop_line(const char *what, uint64_t id) {
  const SioLoopDesc *l = find_loop(id);
  if (l)
    dprintf(1, "%s %s:%u\n", what, l->function, l->line);
  else
    dprintf(1, "%s ?%016llx\n", what, (unsigned long long)id);
}

void __sio_site(uint64_t id) {
  const SioSiteDesc *s = find_site(id);
  if (!s) {
    dprintf(1, "site ?%016llx\n", (unsigned long long)id);
    return;
  }
  const SioLoopDesc *l = s->loop_id ? find_loop(s->loop_id) : NULL;
  if (l)
    dprintf(1, "site %s %s:%u:%u loop=%s:%u\n", s->callee, s->function,
            s->line, s->column, l->function, l->line);
  else
    dprintf(1, "site %s %s:%u:%u loop=none\n", s->callee, s->function,
            s->line, s->column);
}

void __sio_loop_enter(uint64_t id) { loop_line("enter", id); }
void __sio_loop_iter(uint64_t id) { loop_line("iter", id); }
void __sio_loop_exit(uint64_t id) { loop_line("exit", id); }
