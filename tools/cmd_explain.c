/*
 * cmd_explain.c - `topomatch explain JOBID`: why a Slurm job got its
 * nodes and where its ranks run.  The job comes from squeue --json (its
 * state, nodes, SystemComment and the cores it holds); the placement is
 * recomputed exactly as srun's SPANK plugin makes it (map_ranks() in
 * plugin/spank/topomatch_spank.c) and compared with Slurm's block layout
 * on the same CPUs: hop-bytes, and the traffic each switch carries.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cli.h"
#include "sim/sim.h"
#include "tm_plugin_conf.h"

#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int cmd_explain(int argc, char **argv);

static const char help[] =
	"Usage: topomatch explain JOBID -c PATTERN [OPTIONS]\n"
	"Where a Slurm job's ranks run and the traffic between its switches: the\n"
	"job's state and nodes (squeue --json), what slurmctld wrote in its\n"
	"SystemComment, the placement srun's topomatch plugin gives the ranks on\n"
	"the job's CPUs, its hop-bytes against Slurm's block layout on the same\n"
	"CPUs, and the pattern's weight that crosses each switch.\n"
	"\n"
	"  -c, --pattern FILE      the job's communication pattern (sbatch\n"
	"                          --comm-pattern's file; '-' = stdin)\n"
	"  -t, --topology FILE     the cluster description (default: ClusterYAML\n"
	"                          of topomatch.conf beside $SLURM_CONF)\n"
	"      --squeue-json FILE  a saved `squeue --json` output ('-' = stdin)\n"
	"                          instead of running squeue\n"
	"      --mapper NAME       the job's --comm-mapper (default: topomatch.conf's\n"
	"                          Mapper, else auto)\n"
	"      --cpus-per-task N   the job's -c (default: squeue's cpus_per_task,\n"
	"                          else 1)\n"
	"      --json              print only one JSON object on stdout\n"
	"  -h, --help              this text\n"
	"\n"
	"Exit status: 0 success, 1 bad input or failed run, 2 bad usage.\n"
	"See topomatch-explain(1).\n";

enum { OPT_SQUEUE_JSON = OPT_FIRST_PRIVATE, OPT_CPT };

#define MAX_CPUS_PER_TASK 1024 /* srun's bound (TM_MAP_MAX_CPUS) */
/* json-c takes an int length */
#define MAX_JSON_BYTES ((size_t)INT_MAX - 1)

struct args {
	int64_t jobid;
	const char *pattern, *topo, *squeue_json, *mapper;
	int64_t cpt;
	bool json;
};

/* What squeue says of the job; strings belong to the parsed document. */
struct job {
	int64_t id, tasks, cpt; /* tasks -1: not given; cpt 0: not given */
	const char *state, *nodes, *comment;
	json_object *resources; /* job_resources, NULL without an allocation */
};

/* A switch above the job's nodes: depth (0: the top) and index at that
 * depth, the pattern's weight routed through it, the nodes below it. */
struct sw {
	int depth;
	int64_t index;
	double traffic;
	char *name;
};

/* The recomputed placement. */
struct placement {
	topomatch_cluster_t *cl;
	topomatch_affinity_t *a;
	const char *cluster_path, *pattern_source;
	char pattern_note[TOPOMATCH_ERRLEN + 128];
	bool enabled;
	int64_t n, cpt, cpt_from; /* cpt_from: 0 default, 1 squeue, 2 option */
	int64_t *jnodes, njnodes; /* the job's nodes, cluster order */
	int64_t *slot, *first, nslots;
	int64_t *pu, *block;          /* cluster PU of each rank's slot */
	topomatch_metrics_t m, mb;
	char mapper[256];
	/* tree networks */
	int levels;
	int64_t span[TOPOMATCH_MAX_LEVELS];
	int64_t *pos; /* node position of every cluster node */
	struct sw *sw; /* sorted by depth, then index */
	int64_t nsw;
	double within, total; /* weight inside nodes; the pattern's */
};

/* ------------------------------------------------------------ arguments */

static int parse_args(int argc, char **argv, struct args *x)
{
	static const struct option longopts[] = {
		{ "pattern", required_argument, NULL, 'c' },
		{ "topology", required_argument, NULL, 't' },
		{ "squeue-json", required_argument, NULL, OPT_SQUEUE_JSON },
		{ "mapper", required_argument, NULL, OPT_MAPPER },
		{ "cpus-per-task", required_argument, NULL, OPT_CPT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': x->pattern = optarg; break;
		case 't': x->topo = optarg; break;
		case OPT_SQUEUE_JSON: x->squeue_json = optarg; break;
		case OPT_MAPPER: x->mapper = optarg; break;
		case OPT_CPT:
			if (!cli_int64("explain", "--cpus-per-task", optarg, 1, MAX_CPUS_PER_TASK,
				       &x->cpt))
				return CLI_USAGE;
			break;
		case OPT_JSON: x->json = true; break;
		case 'h': fputs(help, stdout); return -1;
		case ':':
			return cli_usage_error("explain", "option '%s' needs a value",
					       argv[optind - 1]);
		default:
			return cli_usage_error("explain", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("explain", "which job? give its JOBID");
	if (optind + 1 < argc)
		return cli_usage_error("explain", "unexpected argument '%s'", argv[optind + 1]);
	const char *id = argv[optind];
	char *end;
	errno = 0;
	long long v = strtoll(id, &end, 10);
	if (errno || end == id || *end || id[0] == '-' || id[0] == '+' || v < 1 ||
	    v > (long long)UINT32_MAX)
		return cli_usage_error("explain", "JOBID: '%s' is not a job number (an array "
				       "task or a component of a heterogeneous job: its own "
				       "job_id, as squeue --json gives it)", id);
	x->jobid = v;
	if (!x->pattern)
		return cli_usage_error("explain", "-c PATTERN is needed (the job's "
				       "--comm-pattern file)");
	if (x->squeue_json && !strcmp(x->squeue_json, "-") && !strcmp(x->pattern, "-"))
		return cli_usage_error("explain", "--squeue-json - and -c - both want stdin");
	if (x->mapper && !cli_mapper_ok("explain", x->mapper))
		return CLI_USAGE;
	return CLI_OK;
}

/* ------------------------------------------------------------ squeue's JSON */

/* Append what fd gives to *buf; 0, or an errno value. */
static int read_fd(int fd, char **buf, size_t *len)
{
	size_t cap = *len + 65536;
	char *b = realloc(*buf, cap + 1);
	if (!b)
		return ENOMEM;
	*buf = b;
	for (;;) {
		if (*len == cap) {
			if (cap > MAX_JSON_BYTES)
				return EFBIG;
			cap *= 2;
			if (!(b = realloc(*buf, cap + 1)))
				return ENOMEM;
			*buf = b;
		}
		ssize_t r = read(fd, *buf + *len, cap - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			break;
		*len += (size_t)r;
	}
	if (*len > MAX_JSON_BYTES)
		return EFBIG;
	(*buf)[*len] = 0;
	return 0;
}

static void read_error(const char *name, int e)
{
	if (e == EFBIG)
		cli_error("explain", "%s: larger than %zu bytes", name, MAX_JSON_BYTES);
	else
		cli_error("explain", "%s: %s", name, strerror(e));
}

static int read_file(const char *path, char **buf, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (fd < 0) {
		read_error(path, errno);
		return CLI_FAIL;
	}
	int e = read_fd(fd, buf, len);
	if (fd != STDIN_FILENO)
		close(fd);
	if (e) {
		read_error(strcmp(path, "-") ? path : "stdin", e);
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* The first line of what squeue wrote on stderr, for the message. */
static void first_line(FILE *f, char *buf, size_t len)
{
	buf[0] = 0;
	rewind(f);
	while (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\r\n")] = 0;
		for (char *c = buf; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?'; /* for a terminal */
		if (buf[0])
			return;
	}
	snprintf(buf, len, "(nothing on stderr)");
}

/* The squeue that execvp would run: the first executable "squeue" in a
 * directory of PATH (unset: the system's default path), malloc'd; NULL
 * when there is none. */
static char *find_squeue(void)
{
	const char *path = getenv("PATH");
	char dflt[256];
	if (!path) {
		size_t n = confstr(_CS_PATH, dflt, sizeof(dflt));
		path = n > 0 && n <= sizeof(dflt) ? dflt : "/bin:/usr/bin";
	}
	for (const char *p = path;; p++) {
		size_t n = strcspn(p, ":");
		char *f = malloc(n + sizeof("/squeue") + 2);
		if (!f)
			return NULL;
		/* an empty entry is the current directory */
		snprintf(f, n + sizeof("/squeue") + 2, "%.*s/squeue", (int)(n ? n : 1), n ? p : ".");
		struct stat st;
		if (stat(f, &st) == 0 && S_ISREG(st.st_mode) && access(f, X_OK) == 0)
			return f;
		free(f);
		p += n;
		if (!*p)
			return NULL;
	}
}

/*
 * Run `squeue --json` (fixed arguments, no shell; Slurm 22.05's squeue
 * ignores -j with --json, so every job comes and the caller picks one).
 * Its stderr goes to a temporary file, so that nothing blocks while its
 * stdout is read.
 */
static int run_squeue(char **buf, size_t *len)
{
	static char arg0[] = "squeue", arg1[] = "--json";
	char *const sargv[] = { arg0, arg1, NULL };
	extern char **environ;
	int out[2] = { -1, -1 }, rc = CLI_FAIL, e, status;
	FILE *errf = tmpfile();
	posix_spawn_file_actions_t fa;
	pid_t pid;
	char *exe = find_squeue();
	if (!exe) {
		cli_error("explain", "cannot run squeue: not found on PATH (is Slurm's squeue "
				     "installed? --squeue-json FILE reads a saved output)");
		if (errf)
			fclose(errf);
		return CLI_FAIL;
	}
	if (!errf || pipe2(out, O_CLOEXEC)) {
		cli_error("explain", "cannot run squeue: %s", strerror(errno));
		if (errf)
			fclose(errf);
		free(exe);
		return CLI_FAIL;
	}
	if ((e = posix_spawn_file_actions_init(&fa)) == 0) {
		if (!(e = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
							   O_RDONLY, 0)) &&
		    !(e = posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO)) &&
		    !(e = posix_spawn_file_actions_adddup2(&fa, fileno(errf), STDERR_FILENO)))
			e = posix_spawn(&pid, exe, &fa, NULL, sargv, environ);
		posix_spawn_file_actions_destroy(&fa);
	}
	close(out[1]);
	if (e) {
		cli_error("explain", "cannot run %s: %s (--squeue-json FILE reads a saved output)",
			  exe, strerror(e));
		free(exe);
		close(out[0]);
		fclose(errf);
		return CLI_FAIL;
	}
	e = read_fd(out[0], buf, len);
	close(out[0]); /* squeue gets SIGPIPE if it still writes */
	pid_t w;
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	char why[512];
	if (e) {
		read_error("squeue --json's output", e);
	} else if (w < 0) {
		cli_error("explain", "squeue --json: %s", strerror(errno));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rc = CLI_OK;
	} else if (WIFEXITED(status)) {
		first_line(errf, why, sizeof(why));
		cli_error("explain", "%s --json failed (exit status %d): %s", exe,
			  WEXITSTATUS(status), why);
	} else {
		cli_error("explain", "%s --json was killed by signal %d", exe,
			  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	}
	fclose(errf);
	free(exe);
	return rc;
}

/* 1-based line of byte offset off in buf. */
static long line_of(const char *buf, size_t off)
{
	long line = 1;
	for (const char *p = buf; (p = memchr(p, '\n', off - (size_t)(p - buf))); p++)
		line++;
	return line;
}

/* Parse the document in buf[0 .. len-1] (NUL-terminated); src names it. */
static int parse_json(const char *src, const char *buf, size_t len, json_object **root)
{
	const char *nul = memchr(buf, 0, len);
	if (nul) {
		cli_error("explain", "%s:%ld: malformed JSON: a NUL byte", src,
			  line_of(buf, (size_t)(nul - buf)));
		return CLI_FAIL;
	}
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		cli_error("explain", "out of memory");
		return CLI_FAIL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	/* the terminating NUL included: the input ends there */
	*root = json_tokener_parse_ex(tok, buf, (int)len + 1);
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (end > len)
		end = len;
	if (je != json_tokener_success || !*root) {
		json_object_put(*root);
		*root = NULL;
		if (strspn(buf, " \t\r\n") == len)
			cli_error("explain", "%s: empty: no JSON at all", src);
		else
			cli_error("explain", "%s:%ld: malformed JSON: %s", src, line_of(buf, end),
				  je == json_tokener_success ? "null document"
							     : json_tokener_error_desc(je));
		return CLI_FAIL;
	}
	size_t rest = end + strspn(buf + end, " \t\r\n");
	if (rest < len) {
		cli_error("explain", "%s:%ld: malformed JSON: text after the document", src,
			  line_of(buf, rest));
		json_object_put(*root);
		*root = NULL;
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* Member key of o; NULL when o is not an object, key is absent or null. */
static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* The job's string field key: 0 with *s ("" when absent or null), -1 when it
 * is something else (message printed). */
static int job_string(const char *src, int64_t id, json_object *job, const char *key,
		      const char **s)
{
	json_object *v = member(job, key);
	*s = "";
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_string)) {
		cli_error("explain", "%s: job %lld: \"%s\" is not a string", src, (long long)id,
			  key);
		return -1;
	}
	*s = json_object_get_string(v);
	return 0;
}

/* The job's whole-number field key into *v (dflt when absent or null). */
static int job_int(const char *src, int64_t id, json_object *job, const char *key,
		   int64_t min, int64_t dflt, int64_t *v)
{
	json_object *o = member(job, key);
	*v = dflt;
	if (!o)
		return 0;
	errno = 0;
	if (!json_object_is_type(o, json_type_int) || (*v = json_object_get_int64(o)) < min ||
	    errno) {
		cli_error("explain", "%s: job %lld: \"%s\" is not a whole number >= %lld", src,
			  (long long)id, key, (long long)min);
		return -1;
	}
	return 0;
}

static int find_job(const char *src, json_object *root, int64_t jobid, struct job *j)
{
	json_object *jobs = member(root, "jobs");
	if (!json_object_is_type(jobs, json_type_array)) {
		cli_error("explain", "%s: no \"jobs\" list: not the output of squeue --json", src);
		return CLI_FAIL;
	}
	json_object *job = NULL;
	size_t n = json_object_array_length(jobs);
	for (size_t k = 0; k < n && !job; k++) {
		json_object *e = json_object_array_get_idx(jobs, k), *id = member(e, "job_id");
		if (json_object_is_type(id, json_type_int) && json_object_get_int64(id) == jobid)
			job = e;
	}
	if (!job) {
		cli_error("explain", "job %lld: not found in squeue's output (%s)", (long long)jobid,
			  src);
		return CLI_FAIL;
	}
	memset(j, 0, sizeof(*j));
	j->id = jobid;
	if (job_string(src, jobid, job, "job_state", &j->state) ||
	    job_string(src, jobid, job, "nodes", &j->nodes) ||
	    job_string(src, jobid, job, "system_comment", &j->comment) ||
	    job_int(src, jobid, job, "tasks", 1, -1, &j->tasks) ||
	    job_int(src, jobid, job, "cpus_per_task", 0, 0, &j->cpt))
		return CLI_FAIL;
	if (j->cpt >= 0xfffe) /* NO_VAL16, INFINITE16: not set */
		j->cpt = 0;
	if (!j->state[0])
		j->state = "UNKNOWN";
	j->resources = member(job, "job_resources");
	if (j->resources && !json_object_is_type(j->resources, json_type_object)) {
		cli_error("explain", "%s: job %lld: \"job_resources\" is not an object", src,
			  (long long)jobid);
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* slurmctld's "topomatch: ..." line of SystemComment (Slurm's own lines
 * stay around it), into buf; 0 when there is none. */
static int comment_line(const char *comment, char *buf, size_t len)
{
	for (const char *p = comment; p && *p;) {
		size_t n = strcspn(p, "\n");
		if (!strncmp(p, "topomatch: ", 11)) {
			snprintf(buf, len, "%.*s", (int)n, p);
			return 1;
		}
		p += n + (p[n] == '\n');
	}
	buf[0] = 0;
	return 0;
}

/* ------------------------------------------------------------ the job's CPUs */

static int parse_index(const char *s, int64_t max, int64_t *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || s[0] == '+' || x < 0 || x >= max)
		return -1;
	*v = x;
	return 0;
}

/*
 * The cores the job holds on node cn (allocated_nodes[k]): Slurm's core
 * number is S x cores per socket + C for socket "S", core "C" (squeue's
 * v0.0.38 dump), as slurm_job_cpus_allocated_str_on_node gives them to
 * srun's job_pus().  set[] has room for the node's cores.
 */
static int node_cores(const char *src, int64_t jobid, const topomatch_cluster_t *cl,
		      const char *name, int64_t cn, json_object *entry, unsigned char *set)
{
	int sockets = 1, cores = 1, threads = 1;
	topomatch_cluster_node_hw(cl, cn, &sockets, &cores, &threads);
	int64_t cps = sockets > 0 ? cores / sockets : cores;
	json_object *socks = member(entry, "sockets");
	if (!json_object_is_type(socks, json_type_object)) {
		cli_error("explain", "%s: job %lld: node %s: no \"sockets\" object", src,
			  (long long)jobid, name);
		return -1;
	}
	json_object_object_foreach(socks, skey, sval)
	{
		int64_t s, c;
		json_object *cs = member(sval, "cores");
		if (parse_index(skey, sockets, &s)) {
			cli_error("explain", "%s: job %lld: node %s: socket \"%s\", but the cluster "
					     "description gives it %d socket%s", src, (long long)jobid,
				  name, skey, sockets, sockets == 1 ? "" : "s");
			return -1;
		}
		if (!json_object_is_type(cs, json_type_object)) {
			cli_error("explain", "%s: job %lld: node %s: socket %s has no \"cores\" "
					     "object", src, (long long)jobid, name, skey);
			return -1;
		}
		json_object_object_foreach(cs, ckey, cval)
		{
			const char *st = json_object_is_type(cval, json_type_string)
						 ? json_object_get_string(cval)
						 : "";
			if (parse_index(ckey, cps, &c)) {
				cli_error("explain", "%s: job %lld: node %s: socket %s core \"%s\", but "
						     "the cluster description gives it %lld cores "
						     "per socket", src, (long long)jobid, name, skey,
					  ckey, (long long)cps);
				return -1;
			}
			if (strcmp(st, "allocated") && strcmp(st, "allocated_and_in_use")) {
				cli_error("explain", "%s: job %lld: node %s: socket %s core %s is "
						     "\"%.40s\" (expected \"allocated\")", src,
					  (long long)jobid, name, skey, ckey, st);
				return -1;
			}
			set[s * cps + c] = 1;
		}
	}
	return 0;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/*
 * The job's PUs, in cluster order, into *pus, and its nodes into p->jnodes:
 * every PU of an allocated core (a PU's local index / threads per core is
 * its core, as in job_pus()).
 */
static int job_pus(const char *src, const struct job *j, struct placement *p, int64_t **pus,
		   int64_t *npus)
{
	json_object *an = member(j->resources, "allocated_nodes");
	size_t nn = json_object_is_type(an, json_type_array) ? json_object_array_length(an) : 0;
	int64_t ncl = topomatch_cluster_nnodes(p->cl), total = topomatch_cluster_npu(p->cl);
	unsigned char *seen = calloc((size_t)ncl + 1, 1), *set = NULL;
	*pus = malloc(((size_t)total + 1) * sizeof(**pus));
	p->jnodes = malloc(((size_t)ncl + 1) * sizeof(*p->jnodes));
	*npus = 0;
	int rc = CLI_FAIL;
	if (!seen || !*pus || !p->jnodes) {
		cli_error("explain", "out of memory");
		goto out;
	}
	if (!nn) {
		cli_error("explain", "%s: job %lld (%s) lists no allocated cores "
				     "(job_resources.allocated_nodes)", src, (long long)j->id, j->state);
		goto out;
	}
	for (size_t k = 0; k < nn; k++) {
		json_object *e = json_object_array_get_idx(an, k), *nm = member(e, "nodename");
		if (!json_object_is_type(nm, json_type_string)) {
			cli_error("explain", "%s: job %lld: allocated_nodes[%zu] has no \"nodename\"",
				  src, (long long)j->id, k);
			goto out;
		}
		const char *name = json_object_get_string(nm);
		int64_t cn = topomatch_cluster_node_find(p->cl, name), count = 0, first;
		if (cn < 0) {
			cli_error("explain", "%s: job %lld runs on node %.256s, which the cluster "
					     "description %s does not have", src, (long long)j->id,
				  name, p->cluster_path);
			goto out;
		}
		if (seen[cn]++) {
			cli_error("explain", "%s: job %lld: node %.256s is listed twice", src,
				  (long long)j->id, name);
			goto out;
		}
		int sockets = 1, cores = 1, threads = 1;
		topomatch_cluster_node_hw(p->cl, cn, &sockets, &cores, &threads);
		first = topomatch_cluster_node_pus(p->cl, cn, &count);
		free(set);
		if (!(set = calloc((size_t)cores + 1, 1))) {
			cli_error("explain", "out of memory");
			goto out;
		}
		if (node_cores(src, j->id, p->cl, name, cn, e, set))
			goto out;
		p->jnodes[p->njnodes++] = cn;
		for (int64_t l = 0; threads > 0 && l < count; l++)
			if (l / threads < cores && set[l / threads])
				(*pus)[(*npus)++] = first + l;
	}
	qsort(*pus, (size_t)*npus, sizeof(**pus), cmp_i64);
	qsort(p->jnodes, (size_t)p->njnodes, sizeof(*p->jnodes), cmp_i64);
	rc = CLI_OK;
out:
	free(set);
	free(seen);
	return rc;
}

/* ------------------------------------------------------------ the placement */

/* topomatch.conf beside $SLURM_CONF (srun's), and the cluster. */
static int load_conf(const struct args *x, tm_plugin_conf_t *conf, struct placement *p)
{
	char path[4096], err[TOPOMATCH_ERRLEN + 4200];
	const char *slurm_conf = getenv("SLURM_CONF");
	tm_plugin_conf_path(slurm_conf ? slurm_conf : "/etc/slurm/slurm.conf", path, sizeof(path));
	int crc = tm_plugin_conf_read(path, conf, err, sizeof(err));
	if (crc < 0 || (crc > 0 && !x->topo)) {
		cli_error("explain", "%s%s", err, crc > 0 ? " (-t CLUSTER.yaml names the cluster)" : "");
		return CLI_FAIL;
	}
	p->enabled = conf->enabled;
	p->cluster_path = x->topo ? x->topo : conf->cluster_yaml;
	if (!p->cluster_path[0]) {
		cli_error("explain", "%s has no ClusterYAML (-t CLUSTER.yaml names the cluster)",
			  path);
		return CLI_FAIL;
	}
	if (topomatch_cluster_load(p->cluster_path, &p->cl, err)) {
		cli_error("explain", "%s", err);
		return CLI_FAIL;
	}
	return CLI_OK;
}

/*
 * The pattern as srun has it (step_pattern() in topomatch_spank.c):
 * sbatch --comm-pattern read the file and encoded it into the job within
 * topomatch.conf's limits (submit_pattern()), srun decodes the job's copy,
 * so the weights are the blob's, as slurmctld's; when sbatch had to drop
 * pairs to fit, srun lays out the ranks with the whole file (the file
 * here is the one the job was encoded from), and when sbatch could not
 * store it at all, srun reads the file.
 */
static int load_pattern(const struct args *x, const tm_plugin_conf_t *conf, struct placement *p)
{
	char err[TOPOMATCH_ERRLEN];
	topomatch_limits_t lim = { .max_bytes = TM_PLUGIN_PATTERN_MAX_BYTES };
	topomatch_affinity_t *file = NULL;
	topomatch_blob_info_t info;
	char **entries = NULL;
	int ne = 0;
	if (topomatch_affinity_read_file(x->pattern, TOPOMATCH_FORMAT_AUTO, &lim, &file, err)) {
		cli_error("explain", "%s", err);
		return CLI_FAIL;
	}
	/* srun's limits: a step over the task limit is laid out node by
	 * node, its pattern read up to its task count */
	int64_t n = topomatch_affinity_ntasks(file);
	int64_t most = tm_plugin_pattern_tasks(conf, n);
	topomatch_blob_limits_t elim = tm_plugin_encode_limits(conf);
	topomatch_blob_limits_t blim = { .max_tasks = most };
	if (n > most) {
		/* srun's fallback reads the file with the same limit */
		cli_error("explain", "srun keeps Slurm's layout: --comm-pattern: %s: %lld tasks, "
				     "more than %lld", x->pattern, (long long)n, (long long)most);
		topomatch_affinity_destroy(file);
		return CLI_FAIL;
	}
	p->pattern_source = "file";
	if (topomatch_blob_encode(file, TM_PLUGIN_SPARSE_FACTOR, &elim, &entries, &ne, &info,
				  err) != TOPOMATCH_OK) {
		snprintf(p->pattern_note, sizeof(p->pattern_note),
			 "sbatch cannot store the pattern in the job (%s): srun reads the file", err);
	} else if (info.group > 1) {
		snprintf(p->pattern_note, sizeof(p->pattern_note),
			 "the job carries the pattern in groups of %lld ranks (PatternKiB=%d does "
			 "not hold its tasks one by one): srun lays out the ranks with all of it, "
			 "from the file", (long long)info.group, conf->pattern_kib);
	} else if (info.nnz_kept < info.nnz_input) {
		snprintf(p->pattern_note, sizeof(p->pattern_note),
			 "the job carries %lld of the pattern's %lld pairs (PatternKiB=%d, %lld "
			 "pairs for JobBudgetMs=%g): srun lays out the ranks with all of them, "
			 "from the file", (long long)info.nnz_kept, (long long)info.nnz_input,
			 conf->pattern_kib, (long long)elim.max_edges, conf->job_budget_ms);
	} else if (topomatch_blob_decode((const char *const *)entries, ne, &blim, &p->a, NULL,
					 err) == TOPOMATCH_OK) {
		p->pattern_source = "job";
		topomatch_affinity_destroy(file);
		file = NULL;
	} else {
		snprintf(p->pattern_note, sizeof(p->pattern_note),
			 "the job's copy of the pattern does not decode (%s): srun reads the file",
			 err);
	}
	if (file)
		p->a = file;
	topomatch_blob_free(entries, ne);
	return CLI_OK;
}

static void oom(void)
{
	cli_error("explain", "out of memory");
}

/*
 * srun's layout of a step that gets all of the job's CPUs: the job's PUs
 * and the mapper of --mapper (the job's --comm-mapper) else
 * topomatch.conf's, through topomatch_cluster_map_slots (node by node,
 * topomatch_cluster_map_slots_blocks, over the task limit), the functions
 * srun's SPANK plugin calls (map_ranks() in topomatch_spank.c).
 */
static int place(const struct args *x, const tm_plugin_conf_t *conf, const char *src,
		 const struct job *j, struct placement *p)
{
	char err[TOPOMATCH_ERRLEN];
	int64_t *pus = NULL, npus = 0, *tpu = NULL;
	int rc = CLI_FAIL;
	p->n = topomatch_affinity_ntasks(p->a);
	if (j->tasks >= 0 && p->n != j->tasks) {
		cli_error("explain", "%s: the pattern has %lld tasks, the job %lld", x->pattern,
			  (long long)p->n, (long long)j->tasks);
		return CLI_FAIL;
	}
	if (j->tasks < 0) {
		cli_error("explain", "%s: job %lld: squeue gives no task count (\"tasks\")", src,
			  (long long)j->id);
		return CLI_FAIL;
	}
	p->cpt = x->cpt ? x->cpt : j->cpt ? j->cpt : 1;
	p->cpt_from = x->cpt ? 2 : j->cpt ? 1 : 0;
	if (p->cpt > MAX_CPUS_PER_TASK) {
		cli_error("explain", "%s: job %lld: %lld CPUs per task: srun keeps Slurm's layout "
				     "above %d", src, (long long)j->id, (long long)p->cpt,
			  MAX_CPUS_PER_TASK);
		return CLI_FAIL;
	}
	if (job_pus(src, j, p, &pus, &npus))
		goto out;
	p->slot = malloc(((size_t)npus + 1) * sizeof(*p->slot));
	p->first = malloc(((size_t)npus / (size_t)p->cpt + 1) * sizeof(*p->first));
	p->pu = malloc(((size_t)p->n + 1) * sizeof(*p->pu));
	p->block = malloc(((size_t)p->n + 1) * sizeof(*p->block));
	tpu = malloc(((size_t)p->n + 1) * sizeof(*tpu));
	if (!p->slot || !p->first || !p->pu || !p->block || !tpu) {
		oom();
		goto out;
	}
	topomatch_map_result_t res;
	const char *mapper = x->mapper ? x->mapper : conf->mapper[0] ? conf->mapper : NULL;
	int64_t limit = tm_plugin_task_limit(conf);
	int mrc = p->n > limit ? topomatch_cluster_map_slots_blocks(
					 p->cl, p->a, pus, npus, p->cpt, mapper, limit, p->slot,
					 p->first, &p->nslots, p->pu, &res, err)
			       : topomatch_cluster_map_slots(p->cl, p->a, pus, npus, p->cpt,
							     mapper, p->slot, p->first,
							     &p->nslots, p->pu, &res, err);
	if (mrc == TOPOMATCH_ELIMIT)
		cli_error("explain", "job %lld: %s: srun keeps Slurm's layout%s", (long long)j->id,
			  err, p->cpt_from == 2 ? "" : " (--cpus-per-task N gives the job's -c)");
	else if (mrc)
		cli_error("explain", "mapping failed: %s", err);
	if (mrc)
		goto out;
	if (p->n > limit) /* as srun's log says it */
		snprintf(p->mapper, sizeof(p->mapper), "%s node by node (%lld tasks, more than "
			 "the %lld a decision maps one by one)", res.mapper, (long long)p->n,
			 (long long)limit);
	else
		snprintf(p->mapper, sizeof(p->mapper), "%s", res.mapper);
	/* Slurm's block layout on the same CPUs: rank r on the r-th slot */
	for (int64_t r = 0; r < p->n; r++)
		p->block[r] = p->first[r];
	const topomatch_topology_t *t = topomatch_cluster_topology(p->cl);
	for (int pass = 0; pass < 2; pass++) {
		const int64_t *use = pass ? p->block : p->pu;
		for (int64_t r = 0; r < p->n; r++)
			tpu[r] = topomatch_cluster_pu_to_topology(p->cl, use[r]);
		if (topomatch_metrics_compute(p->a, t, tpu, pass ? &p->mb : &p->m, err)) {
			cli_error("explain", "%s", err);
			goto out;
		}
	}
	rc = CLI_OK;
out:
	free(tpu);
	free(pus);
	return rc;
}

/* ------------------------------------------------------------ switches */

/* Node names of the sorted cluster nodes[0..n-1] as a host list. */
static char *hostlist_of(const topomatch_cluster_t *cl, const int64_t *nodes, int64_t n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	sim_hostlist(cl, nodes, n, f);
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

static int cmp_sw(const void *x, const void *y)
{
	const struct sw *a = x, *b = y;
	if (a->depth != b->depth)
		return a->depth - b->depth;
	return (a->index > b->index) - (a->index < b->index);
}

static struct sw *find_sw(const struct placement *p, int depth, int64_t index)
{
	struct sw key = { .depth = depth, .index = index };
	return bsearch(&key, p->sw, (size_t)p->nsw, sizeof(*p->sw), cmp_sw);
}

/* Node indices by their position (qsort_r's argument: the positions). */
static int cmp_pos_idx(const void *x, const void *y, void *arg)
{
	const int64_t *pos = arg, a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (pos[a] > pos[b]) - (pos[a] < pos[b]);
}

/*
 * On a tree: the switches above the job's nodes (depth d holds switch
 * position / span[d] of a node position, topomatch_cluster_node_position),
 * each named by the nodes below it, and the weight of the pattern's pairs
 * whose route (up to the lowest common switch and down) crosses it.
 */
static int switch_traffic(struct placement *p)
{
	int levels = -1, arity[TOPOMATCH_MAX_LEVELS];
	int64_t ncl = topomatch_cluster_nnodes(p->cl);
	topomatch_cluster_node_position(p->cl, 0, &levels);
	p->levels = levels;
	p->total = topomatch_affinity_total(p->a);
	if (levels < 1)
		return CLI_OK;
	int tl = topomatch_topology_tree_shape(topomatch_cluster_topology(p->cl), arity, NULL);
	if (tl < levels) {
		p->levels = -1;
		return CLI_OK;
	}
	for (int d = levels - 1; d >= 0; d--)
		p->span[d] = (int64_t)arity[d] * (d + 1 < levels ? p->span[d + 1] : 1);
	int64_t *order = malloc(((size_t)ncl + 1) * sizeof(*order)), *below = NULL;
	p->pos = malloc(((size_t)ncl + 1) * sizeof(*p->pos));
	p->sw = calloc((size_t)p->njnodes * (size_t)levels + 1, sizeof(*p->sw));
	below = malloc(((size_t)ncl + 1) * sizeof(*below));
	if (!order || !p->pos || !p->sw || !below) {
		free(order);
		free(below);
		oom();
		return CLI_FAIL;
	}
	for (int64_t i = 0; i < ncl; i++) {
		p->pos[i] = topomatch_cluster_node_position(p->cl, i, NULL);
		order[i] = i;
	}
	qsort_r(order, (size_t)ncl, sizeof(*order), cmp_pos_idx, p->pos);
	for (int64_t k = 0; k < p->njnodes; k++)
		for (int d = 0; d < levels; d++)
			p->sw[p->nsw++] = (struct sw){ d, p->pos[p->jnodes[k]] / p->span[d], 0, NULL };
	qsort(p->sw, (size_t)p->nsw, sizeof(*p->sw), cmp_sw);
	int64_t u = 0;
	for (int64_t k = 0; k < p->nsw; k++)
		if (!u || cmp_sw(&p->sw[u - 1], &p->sw[k]))
			p->sw[u++] = p->sw[k];
	p->nsw = u;
	int rc = CLI_OK;
	for (int64_t k = 0; k < p->nsw && rc == CLI_OK; k++) {
		struct sw *s = &p->sw[k];
		int64_t lo = s->index * p->span[s->depth], hi = lo + p->span[s->depth], nb = 0;
		/* first node at a position >= lo */
		int64_t a = 0, b = ncl;
		while (a < b) {
			int64_t mid = a + (b - a) / 2;
			if (p->pos[order[mid]] < lo)
				a = mid + 1;
			else
				b = mid;
		}
		for (; a < ncl && p->pos[order[a]] < hi; a++)
			below[nb++] = order[a];
		qsort(below, (size_t)nb, sizeof(*below), cmp_i64);
		if (!(s->name = hostlist_of(p->cl, below, nb))) {
			oom();
			rc = CLI_FAIL;
		}
	}
	free(below);
	free(order);
	if (rc)
		return rc;
	/* each pair once: the symmetric entries A(i,j) = C(i,j) + C(j,i), j > i */
	topomatch_csr_t A = topomatch_affinity_symmetric(p->a);
	for (int64_t i = 0; i < A.n; i++) {
		int64_t pi = p->pos[topomatch_cluster_pu_node(p->cl, p->pu[i], NULL)];
		for (int64_t e = A.rowptr[i]; e < A.rowptr[i + 1]; e++) {
			int64_t jj = A.col[e];
			if (jj <= i)
				continue;
			int64_t pj = p->pos[topomatch_cluster_pu_node(p->cl, p->pu[jj], NULL)];
			double w = A.w[e];
			if (pi == pj) {
				p->within += w;
				continue;
			}
			for (int d = levels - 1; d >= 0; d--) {
				int64_t si = pi / p->span[d], sj = pj / p->span[d];
				struct sw *a = find_sw(p, d, si), *b = find_sw(p, d, sj);
				if (a)
					a->traffic += w;
				if (si == sj)
					break;
				if (b)
					b->traffic += w;
			}
		}
	}
	return CLI_OK;
}

/* ------------------------------------------------------------ output */

/* Text from squeue on a terminal: control characters shown as '?'. */
static void put_safe(const char *s)
{
	for (; *s; s++)
		putchar((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

/* OS CPUs of the slot whose first PU is pu, into cpu[0 .. cpt-1]
 * (slot_cpus()); -1 when a PU has no OS index. */
static int rank_cpus(const struct placement *p, int64_t pu, int *cpu)
{
	const int64_t *f = bsearch(&pu, p->first, (size_t)p->nslots, sizeof(*p->first), cmp_i64);
	if (!f)
		return -1;
	for (int64_t k = 0; k < p->cpt; k++)
		if ((cpu[k] = topomatch_cluster_pu_os_index(p->cl, p->slot[(f - p->first) * p->cpt +
									     k])) < 0)
			return -1;
	return 0;
}

/* "3", "0-3", "0,2,5-7". */
static void print_cpus(const int *cpu, int64_t n)
{
	for (int64_t k = 0; k < n;) {
		int64_t e = k;
		while (e + 1 < n && cpu[e + 1] == cpu[e] + 1)
			e++;
		printf("%s%d", k ? "," : "", cpu[k]);
		if (e > k)
			printf("-%d", cpu[e]);
		k = e + 1;
	}
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : a > 0 ? INFINITY : 1.0;
}

static void print_ratio(double a, double b)
{
	double r = ratio(a, b);
	if (isfinite(r))
		printf(" (x%.2f)", r);
}

static const char *cpt_note(const struct placement *p)
{
	return p->cpt_from == 2 ? "--cpus-per-task"
	       : p->cpt_from == 1 ? "squeue's cpus_per_task"
				  : "squeue gives none: --cpus-per-task N if the job asked for more";
}

static void text_header(const struct job *j, const char *line)
{
	printf("job %lld: ", (long long)j->id);
	put_safe(j->state);
	if (j->nodes[0]) {
		printf(" on ");
		put_safe(j->nodes);
	}
	if (j->tasks >= 0)
		printf(", %lld task%s", (long long)j->tasks, j->tasks == 1 ? "" : "s");
	printf("\nslurmctld: ");
	if (line[0])
		put_safe(line);
	else
		printf("no topomatch line in SystemComment");
	printf("\n");
}

static int print_text(const struct args *x, const struct job *j, const char *line,
		      struct placement *p)
{
	int *cpu = malloc(((size_t)p->cpt + 1) * sizeof(*cpu));
	if (!cpu) {
		oom();
		return CLI_FAIL;
	}
	text_header(j, line);
	printf("cluster %s (%s network): %s\n", topomatch_cluster_name(p->cl),
	       topomatch_cluster_network(p->cl), p->cluster_path);
	printf("pattern %s: %s; %lld CPU%s per task (%s)\n", x->pattern,
	       strcmp(p->pattern_source, "job") ? "read as srun reads the file"
						: "the job's copy, as sbatch encoded it",
	       (long long)p->cpt, p->cpt == 1 ? "" : "s", cpt_note(p));
	if (p->pattern_note[0])
		printf("note: %s\n", p->pattern_note);
	if (!p->enabled)
		printf("note: topomatch.conf has Enabled=no: srun keeps Slurm's layout; below is "
		       "the one it makes when enabled\n");
	printf("placement by %s, as srun lays out the ranks:\n", p->mapper);
	char name[256];
	for (int64_t k = 0; k < p->njnodes; k++) {
		int64_t cn = p->jnodes[k], nr = 0;
		topomatch_cluster_node_name(p->cl, cn, name, sizeof(name));
		printf("  %s", name);
		if (p->levels > 0) {
			printf(" (switches ");
			for (int d = 0; d < p->levels; d++) {
				struct sw *s = find_sw(p, d, p->pos[cn] / p->span[d]);
				printf("%s%s", d ? " > " : "", s && s->name ? s->name : "?");
			}
			printf(")");
		}
		printf(":");
		for (int64_t r = 0; r < p->n; r++) {
			if (topomatch_cluster_pu_node(p->cl, p->pu[r], NULL) != cn)
				continue;
			printf("%s rank %lld: CPU%s ", nr++ ? "," : "", (long long)r,
			       p->cpt > 1 ? "s" : "");
			if (rank_cpus(p, p->pu[r], cpu))
				printf("?");
			else
				print_cpus(cpu, p->cpt);
		}
		printf("%s\n", nr ? "" : " no rank");
	}
	printf("hop-bytes: %.6g here, %.6g with Slurm's block layout on the same CPUs",
	       p->m.hop_bytes, p->mb.hop_bytes);
	print_ratio(p->m.hop_bytes, p->mb.hop_bytes);
	printf("\n");
	if (p->levels > 0) {
		printf("traffic per switch (weight of the pattern's pairs routed through it, "
		       "of %.6g in all):\n", p->total);
		/* "level D (top)  switch over NAME", NAME padded to the longest */
		size_t width = 0;
		for (int64_t k = 0; k < p->nsw; k++)
			width = strlen(p->sw[k].name) > width ? strlen(p->sw[k].name) : width;
		for (int64_t k = 0; k <= p->nsw; k++) {
			const struct sw *s = k < p->nsw ? &p->sw[k] : NULL;
			double v = s ? s->traffic : p->within;
			if (s)
				printf("  level %d %s  switch over %-*s", s->depth,
				       s->depth ? "     " : "(top)", (int)width, s->name);
			else
				printf("  %-*s", (int)(width + strlen("level 0 (top)  switch over ")),
				       "within nodes");
			printf(" %12.6g %6.1f%%\n", v, p->total > 0 ? 100 * v / p->total : 0.0);
		}
	} else {
		printf("max link load: %.6g here, %.6g with Slurm's block layout",
		       p->m.max_link_load, p->mb.max_link_load);
		print_ratio(p->m.max_link_load, p->mb.max_link_load);
		printf("\n");
	}
	free(cpu);
	return CLI_OK;
}

/* json-c objects; a failed allocation makes the whole document NULL. */
struct jw {
	bool bad;
};

static void jadd(struct jw *w, json_object *o, const char *key, json_object *v)
{
	/* json-c represents JSON null as NULL: only a failed add is an error */
	if (!o || json_object_object_add(o, key, v)) {
		json_object_put(v);
		w->bad = true;
	}
}

static json_object *jbool(struct jw *w, bool b)
{
	json_object *v = json_object_new_boolean(b);
	if (!v)
		w->bad = true;
	return v;
}

static json_object *jstr(struct jw *w, const char *s)
{
	json_object *v = json_object_new_string(s);
	if (!v)
		w->bad = true;
	return v;
}

static json_object *jint(struct jw *w, int64_t x)
{
	json_object *v = json_object_new_int64(x);
	if (!v)
		w->bad = true;
	return v;
}

static json_object *jnum(struct jw *w, double x)
{
	if (!isfinite(x))
		return NULL; /* JSON has no inf/nan: null */
	json_object *v = json_object_new_double(x);
	if (!v)
		w->bad = true;
	return v;
}

static json_object *jarr(struct jw *w)
{
	json_object *v = json_object_new_array();
	if (!v)
		w->bad = true;
	return v;
}

static void jpush(struct jw *w, json_object *a, json_object *v)
{
	if (a && json_object_array_add(a, v)) {
		json_object_put(v);
		w->bad = true;
	}
}

static json_object *job_json(struct jw *w, const struct job *j, const char *line)
{
	json_object *o = json_object_new_object();
	if (!o) {
		w->bad = true;
		return NULL;
	}
	jadd(w, o, "job_id", jint(w, j->id));
	jadd(w, o, "job_state", jstr(w, j->state));
	jadd(w, o, "nodes", jstr(w, j->nodes));
	jadd(w, o, "tasks", j->tasks >= 0 ? jint(w, j->tasks) : NULL);
	jadd(w, o, "system_comment", line[0] ? jstr(w, line) : NULL);
	return o;
}

static int emit_json(struct jw *w, json_object *o)
{
	const char *s = !w->bad && o ? json_object_to_json_string_ext(
					       o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							  JSON_C_TO_STRING_NOSLASHESCAPE)
				     : NULL;
	int rc = CLI_FAIL;
	if (!s)
		cli_error("explain", "out of memory");
	else if (printf("%s\n", s) < 0 || fflush(stdout))
		cli_error("explain", "stdout: write failed");
	else
		rc = CLI_OK;
	json_object_put(o);
	return rc;
}

static int print_json(const struct args *x, const struct job *j, const char *line,
		      struct placement *p)
{
	struct jw w = { false };
	json_object *o = job_json(&w, j, line), *pl = jarr(&w), *ranks = jarr(&w);
	int *cpu = malloc(((size_t)p->cpt + 1) * sizeof(*cpu));
	char name[256];
	if (!cpu)
		w.bad = true;
	jadd(&w, o, "allocated", jbool(&w, true));
	jadd(&w, o, "cpus_per_task", jint(&w, p->cpt));
	jadd(&w, o, "cpus_per_task_from",
	     jstr(&w, p->cpt_from == 2 ? "option" : p->cpt_from == 1 ? "squeue" : "default"));
	jadd(&w, o, "cluster", jstr(&w, topomatch_cluster_name(p->cl)));
	jadd(&w, o, "cluster_file", jstr(&w, p->cluster_path));
	jadd(&w, o, "network", jstr(&w, topomatch_cluster_network(p->cl)));
	jadd(&w, o, "pattern", jstr(&w, x->pattern));
	jadd(&w, o, "pattern_source", jstr(&w, p->pattern_source));
	jadd(&w, o, "plugins_enabled", jbool(&w, p->enabled));
	jadd(&w, o, "mapper", jstr(&w, p->mapper));
	for (int64_t r = 0; cpu && r < p->n; r++) {
		json_object *e = json_object_new_object(), *c = jarr(&w);
		int64_t cn = topomatch_cluster_pu_node(p->cl, p->pu[r], NULL);
		topomatch_cluster_node_name(p->cl, cn, name, sizeof(name));
		if (!e)
			w.bad = true;
		jadd(&w, e, "rank", jint(&w, r));
		jadd(&w, e, "node", jstr(&w, name));
		jadd(&w, e, "pu", jint(&w, p->pu[r]));
		if (!rank_cpus(p, p->pu[r], cpu))
			for (int64_t k = 0; k < p->cpt; k++)
				jpush(&w, c, jint(&w, cpu[k]));
		jadd(&w, e, "cpus", c);
		jadd(&w, e, "block_pu", jint(&w, p->block[r]));
		jpush(&w, ranks, e);
	}
	for (int64_t k = 0; k < p->njnodes; k++) {
		int64_t cn = p->jnodes[k];
		json_object *e = json_object_new_object(), *rs = jarr(&w), *sws = NULL;
		if (!e)
			w.bad = true;
		topomatch_cluster_node_name(p->cl, cn, name, sizeof(name));
		jadd(&w, e, "node", jstr(&w, name));
		if (p->levels > 0) {
			sws = jarr(&w);
			for (int d = 0; d < p->levels; d++) {
				struct sw *s = find_sw(p, d, p->pos[cn] / p->span[d]);
				jpush(&w, sws, jstr(&w, s && s->name ? s->name : "?"));
			}
		}
		jadd(&w, e, "switches", sws);
		for (int64_t r = 0; r < p->n; r++)
			if (topomatch_cluster_pu_node(p->cl, p->pu[r], NULL) == cn)
				jpush(&w, rs, jint(&w, r));
		jadd(&w, e, "ranks", rs);
		jpush(&w, pl, e);
	}
	jadd(&w, o, "placement", pl);
	jadd(&w, o, "ranks", ranks);
	jadd(&w, o, "hop_bytes", jnum(&w, p->m.hop_bytes));
	jadd(&w, o, "block_hop_bytes", jnum(&w, p->mb.hop_bytes));
	jadd(&w, o, "ratio", jnum(&w, ratio(p->m.hop_bytes, p->mb.hop_bytes)));
	jadd(&w, o, "max_link_load", jnum(&w, p->m.max_link_load));
	jadd(&w, o, "block_max_link_load", jnum(&w, p->mb.max_link_load));
	jadd(&w, o, "pattern_total", jnum(&w, p->total));
	if (p->levels > 0) {
		json_object *sws = jarr(&w);
		for (int64_t k = 0; k < p->nsw; k++) {
			json_object *e = json_object_new_object();
			if (!e)
				w.bad = true;
			jadd(&w, e, "level", jint(&w, p->sw[k].depth));
			jadd(&w, e, "nodes", jstr(&w, p->sw[k].name));
			jadd(&w, e, "traffic", jnum(&w, p->sw[k].traffic));
			jpush(&w, sws, e);
		}
		jadd(&w, o, "switches", sws);
		jadd(&w, o, "within_nodes", jnum(&w, p->within));
	} else {
		jadd(&w, o, "switches", NULL);
		jadd(&w, o, "within_nodes", NULL);
	}
	if (p->pattern_note[0])
		jadd(&w, o, "note", jstr(&w, p->pattern_note));
	free(cpu);
	return emit_json(&w, o);
}

static int stdout_ok(void)
{
	if (ferror(stdout) || fflush(stdout)) {
		cli_error("explain", "stdout: write failed");
		return CLI_FAIL;
	}
	return CLI_OK;
}

static int print_unallocated(const struct args *x, const struct job *j, const char *line)
{
	const char *what = !strcmp(j->state, "PENDING") ? "no allocation yet: nothing to place"
							 : "no allocation: nothing to place";
	if (x->json) {
		struct jw w = { false };
		json_object *o = job_json(&w, j, line);
		jadd(&w, o, "allocated", jbool(&w, false));
		jadd(&w, o, "note", jstr(&w, what));
		return emit_json(&w, o);
	}
	text_header(j, line);
	printf("%s\n", what);
	return stdout_ok();
}

static void placement_free(struct placement *p)
{
	for (int64_t k = 0; p->sw && k < p->nsw; k++)
		free(p->sw[k].name);
	free(p->sw);
	free(p->pos);
	free(p->pu);
	free(p->block);
	free(p->slot);
	free(p->first);
	free(p->jnodes);
	topomatch_affinity_destroy(p->a);
	topomatch_cluster_destroy(p->cl);
}

int cmd_explain(int argc, char **argv)
{
	struct args x = { 0 };
	int rc = parse_args(argc, argv, &x);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	char *buf = NULL, line[4096];
	size_t len = 0;
	const char *src = x.squeue_json ? (strcmp(x.squeue_json, "-") ? x.squeue_json : "stdin")
					: "squeue --json's output";
	json_object *root = NULL;
	struct job j;
	struct placement p;
	tm_plugin_conf_t conf;
	memset(&p, 0, sizeof(p));
	rc = x.squeue_json ? read_file(x.squeue_json, &buf, &len) : run_squeue(&buf, &len);
	if (rc == CLI_OK)
		rc = parse_json(src, buf, len, &root);
	free(buf);
	if (rc == CLI_OK)
		rc = find_job(src, root, x.jobid, &j);
	if (rc != CLI_OK)
		goto out;
	comment_line(j.comment, line, sizeof(line));
	/* a pending job has no allocation (a requeued one may still list its
	 * last one) */
	if (!j.resources || !strcmp(j.state, "PENDING")) {
		rc = print_unallocated(&x, &j, line);
		goto out;
	}
	if ((rc = load_conf(&x, &conf, &p)) != CLI_OK ||
	    (rc = load_pattern(&x, &conf, &p)) != CLI_OK ||
	    (rc = place(&x, &conf, src, &j, &p)) != CLI_OK || (rc = switch_traffic(&p)) != CLI_OK)
		goto out;
	rc = x.json ? print_json(&x, &j, line, &p) : print_text(&x, &j, line, &p);
	if (rc == CLI_OK)
		rc = stdout_ok();
out:
	placement_free(&p);
	json_object_put(root);
	return rc;
}
