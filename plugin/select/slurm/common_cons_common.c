/* Compiles Slurm's src/plugins/select/cons_common/cons_common.c, from the configured source
 * tree of the installed version (configure --with-slurm-source), into
 * select/topomatch; see plugin/select/README.md.  select_p_reconfigure is
 * renamed: select_topomatch.c's calls it, then re-reads topomatch.conf;
 * so are select_p_select_nodeinfo_set and select_p_job_fini, whose
 * wrappers keep the running jobs' link loads (tm_contention.c). */
#define select_p_reconfigure cons_common_reconfigure
#define select_p_select_nodeinfo_set cons_common_select_nodeinfo_set
#define select_p_job_fini cons_common_job_fini
#include "src/plugins/select/cons_common/cons_common.c"
