/* Compiles Slurm's src/plugins/select/cons_common/cons_common.c, from the configured source
 * tree of the installed version (configure --with-slurm-source), into
 * select/topomatch; see plugin/select/README.md.  select_p_reconfigure is
 * renamed: select_topomatch.c's calls it, then re-reads topomatch.conf. */
#define select_p_reconfigure cons_common_reconfigure
#include "src/plugins/select/cons_common/cons_common.c"
