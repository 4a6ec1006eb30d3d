/*
 * cmd_topo.c - `topomatch topo`: check, show and export cluster
 * descriptions (topomatch.yaml(5)), and import a Slurm topology.conf.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cli.h"
#include "topomatch_cluster.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

int cmd_topo(int argc, char **argv);

static const char help[] =
	"Usage: topomatch topo check FILE [--slurm-conf SLURM_CONF] [--json]\n"
	"       topomatch topo show FILE [--json]\n"
	"       topomatch topo export --scotch FILE [-o OUT]\n"
	"       topomatch topo import-slurm TOPOLOGY_CONF [--slurm-conf SLURM_CONF]\n"
	"                                   [--name NAME]\n"
	"Cluster descriptions (YAML, see topomatch.yaml(5)).\n"
	"\n"
	"  check         validate FILE; exit status 0 only when it is valid\n"
	"  show          nodes, PUs, shape, diameter, and how it maps\n"
	"  export        write an equivalent Scotch target (tleaf for regular\n"
	"                trees and plain grids, deco otherwise)\n"
	"  import-slurm  write a cluster description of a topology.conf on stdout\n"
	"\n"
	"      --slurm-conf FILE   check: every node of FILE must be in slurm.conf with\n"
	"                          the same sockets, cores and threads, and the reverse;\n"
	"                          import-slurm: take the nodes' hardware from it\n"
	"      --json              check, show: one JSON object on stdout\n"
	"      --scotch            export: the Scotch target format (the only one)\n"
	"  -o, --output, --out FILE  export: output file (default: stdout)\n"
	"      --name NAME         import-slurm: the cluster's name\n"
	"  -h, --help              this text\n"
	"\n"
	"Exit status: 0 success, 1 invalid input, 2 bad usage. See topomatch-topo(1).\n";

enum { OPT_SLURM_CONF = OPT_FIRST_PRIVATE, OPT_SCOTCH, OPT_NAME };

struct topo_args {
	const char *action, *file, *slurm_conf, *out, *name;
	bool scotch, json;
};

static int parse_args(int argc, char **argv, struct topo_args *a)
{
	static const struct option longopts[] = {
		{ "slurm-conf", required_argument, NULL, OPT_SLURM_CONF },
		{ "scotch", no_argument, NULL, OPT_SCOTCH },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "output", required_argument, NULL, OPT_OUT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_SLURM_CONF: a->slurm_conf = optarg; break;
		case OPT_SCOTCH: a->scotch = true; break;
		case 'o':
		case OPT_OUT: a->out = optarg; break;
		case OPT_JSON: a->json = true; break;
		case OPT_NAME: a->name = optarg; break;
		case 'h': fputs(help, stdout); return -1;
		case ':': return cli_usage_error("topo", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("topo", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 2 != argc)
		return cli_usage_error("topo", optind + 2 > argc ? "an action and a FILE are needed"
								 : "unexpected argument '%s'",
				       argv[argc - 1]);
	a->action = argv[optind];
	a->file = argv[optind + 1];
	return CLI_OK;
}

/* FILE, '-' (stdin), a pipe or a .gz, as map -t reads it. */
static int load(const char *file, topomatch_cluster_t **c)
{
	char err[TOPOMATCH_ERRLEN], *buf;
	size_t len;
	*c = NULL;
	if (cli_read_input("topo", file, TOPOMATCH_DEFAULT_MAX_BYTES, &buf, &len) != CLI_OK)
		return CLI_FAIL;
	/* relative paths in the description are relative to its file */
	char *copy = strdup(file);
	const char *dir = copy && strcmp(file, "-") ? dirname(copy) : NULL;
	int rc = topomatch_cluster_load_buffer(buf, len, strcmp(file, "-") ? file : "<stdin>", dir,
					       c, err);
	free(copy);
	free(buf);
	if (rc == TOPOMATCH_OK)
		return CLI_OK;
	cli_error("topo", "%s", err);
	return CLI_FAIL;
}

/* ----------------------------------------------------------------- check */

static int do_check(const struct topo_args *a)
{
	topomatch_cluster_t *c;
	int rc = load(a->file, &c);
	if (rc)
		return rc;
	if (a->slurm_conf) {
		char err[TOPOMATCH_ERRLEN];
		int64_t bad = topomatch_cluster_check_slurm_conf(c, a->slurm_conf, stderr, err);
		if (bad < 0)
			cli_error("topo", "%s", err);
		else if (bad > 0)
			cli_error("topo", "%s and %s disagree on %lld node%s", a->file, a->slurm_conf,
				  (long long)bad, bad > 1 ? "s" : "");
		rc = bad ? CLI_FAIL : CLI_OK;
	}
	if (rc == CLI_OK && a->json) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "file", json_object_new_string(a->file));
		json_object_object_add(o, "valid", json_object_new_boolean(1));
		json_object_object_add(o, "cluster", json_object_new_string(topomatch_cluster_name(c)));
		json_object_object_add(o, "nodes", json_object_new_int64(topomatch_cluster_nnodes(c)));
		json_object_object_add(o, "pus", json_object_new_int64(topomatch_cluster_npu(c)));
		json_object_object_add(o, "network",
				       json_object_new_string(topomatch_cluster_network(c)));
		/* null: not compared with a slurm.conf */
		json_object_object_add(o, "agrees_with", a->slurm_conf
								 ? json_object_new_string(a->slurm_conf)
								 : NULL);
		topomatch_cluster_destroy(c);
		return cli_json_print("topo", o);
	}
	if (rc == CLI_OK)
		printf("%s: valid: cluster %s, %lld nodes, %lld PUs, %s network%s%s\n", a->file,
		       topomatch_cluster_name(c), (long long)topomatch_cluster_nnodes(c),
		       (long long)topomatch_cluster_npu(c), topomatch_cluster_network(c),
		       a->slurm_conf ? ", agrees with " : "", a->slurm_conf ? a->slurm_conf : "");
	topomatch_cluster_destroy(c);
	return rc;
}

/* ------------------------------------------------------------------ show */

/* Topology position of node i's first PU. */
static int64_t first_pu(const topomatch_cluster_t *c, int64_t i)
{
	return topomatch_cluster_pu_to_topology(c, topomatch_cluster_node_pus(c, i, NULL));
}

/*
 * Hops between the two PUs furthest apart.  Trees: the lowest and highest
 * positions that hold a PU straddle the deepest common ancestor of all.
 * Grids: PU 0 and the last PU of the opposite router.  Graphs: a search
 * from every node (bounded).
 */
static int64_t diameter(const topomatch_cluster_t *c)
{
	const topomatch_topology_t *t = topomatch_cluster_topology(c);
	int64_t n = topomatch_cluster_nnodes(c), npu = topomatch_cluster_npu(c);
	int kind = topomatch_topology_kind(t);
	if (kind == TOPOMATCH_TOPO_TREE) {
		int64_t lo = INT64_MAX, hi = -1;
		for (int64_t p = 0; p < npu; p++) {
			int64_t q = topomatch_cluster_pu_to_topology(c, p);
			lo = q < lo ? q : lo;
			hi = q > hi ? q : hi;
		}
		return topomatch_topology_hops(t, lo, hi);
	}
	if (kind != TOPOMATCH_TOPO_GRAPH) {
		int dims[TOPOMATCH_MAX_DIMS], nd = topomatch_topology_grid_shape(t, dims);
		unsigned char wrap[TOPOMATCH_MAX_DIMS];
		topomatch_topology_grid_wrap(t, wrap);
		int64_t routers = 1, far = 0;
		for (int k = 0; k < nd; k++)
			routers *= dims[k];
		for (int k = nd - 1; k >= 0; k--)
			far = far * dims[k] + (wrap[k] ? dims[k] / 2 : dims[k] - 1);
		int64_t per = topomatch_topology_npu(t) / routers;
		return topomatch_topology_hops(t, 0, far * per + per - 1);
	}
	if (n > 4096)
		return -1;
	topomatch_router_t *r;
	if (topomatch_router_create(t, &r, NULL))
		return -1;
	int64_t best = n == 1 && npu > 1 ? topomatch_topology_hops(t, 0, npu - 1) : 0;
	for (int64_t i = 0; i < n; i++) {
		topomatch_router_source(r, first_pu(c, i));
		for (int64_t j = i + 1; j < n; j++) {
			int64_t h = topomatch_router_hops(r, first_pu(c, j));
			best = h > best ? h : best;
		}
	}
	topomatch_router_destroy(r);
	return best;
}

static const char *maps_as(const topomatch_cluster_t *c)
{
	const topomatch_topology_t *t = topomatch_cluster_topology(c);
	if (topomatch_topology_kind(t) != TOPOMATCH_TOPO_TREE)
		return topomatch_topology_kind(t) == TOPOMATCH_TOPO_GRAPH
			       ? "a graph (scotch)"
			       : "a grid with closed-form distances (scotch)";
	if (topomatch_topology_npu(t) != topomatch_cluster_npu(c))
		return "a tree with constraints: the enclosing regular tree, some positions "
		       "empty (topomatch-const)";
	return "a tree (treematch; topomatch-const under constraints)";
}

static int do_show(const struct topo_args *a)
{
	topomatch_cluster_t *c;
	int rc = load(a->file, &c);
	if (rc)
		return rc;
	const topomatch_topology_t *t = topomatch_cluster_topology(c);
	char text[4096], shape[1024], first[256], last[256];
	int64_t n = topomatch_cluster_nnodes(c);
	topomatch_cluster_node_name(c, 0, first, sizeof(first));
	topomatch_cluster_node_name(c, n - 1, last, sizeof(last));
	topomatch_topology_describe(t, text, sizeof(text));
	topomatch_cluster_describe(c, shape, sizeof(shape));
	int64_t cores = 0;
	for (int64_t i = 0; i < n; i++) {
		int k;
		topomatch_cluster_node_hw(c, i, NULL, &k, NULL);
		cores += k;
	}
	int64_t d = diameter(c);
	if (a->json) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "file", json_object_new_string(a->file));
		json_object_object_add(o, "cluster", json_object_new_string(topomatch_cluster_name(c)));
		json_object_object_add(o, "network",
				       json_object_new_string(topomatch_cluster_network(c)));
		json_object_object_add(o, "nodes", json_object_new_int64(n));
		json_object_object_add(o, "first_node", json_object_new_string(first));
		json_object_object_add(o, "last_node", json_object_new_string(last));
		json_object_object_add(o, "cores", json_object_new_int64(cores));
		json_object_object_add(o, "pus", json_object_new_int64(topomatch_cluster_npu(c)));
		json_object_object_add(o, "shape", json_object_new_string(shape));
		json_object_object_add(o, "description", json_object_new_string(text));
		json_object_object_add(o, "positions",
				       json_object_new_int64(topomatch_topology_npu(t)));
		/* null: not computed (a graph of more than 4096 nodes) */
		json_object_object_add(o, "diameter_hops", d >= 0 ? json_object_new_int64(d) : NULL);
		json_object_object_add(o, "maps_as", json_object_new_string(maps_as(c)));
		topomatch_cluster_destroy(c);
		return cli_json_print("topo", o);
	}
	printf("cluster:   %s\n", topomatch_cluster_name(c));
	printf("network:   %s\n", topomatch_cluster_network(c));
	printf("nodes:     %lld (%s .. %s)\n", (long long)n, first, last);
	printf("cores:     %lld\n", (long long)cores);
	printf("PUs:       %lld\n", (long long)topomatch_cluster_npu(c));
	printf("shape:     %s\n", shape);
	printf("topology:  %s\n", text);
	printf("positions: %lld PUs in the topology\n", (long long)topomatch_topology_npu(t));
	if (d >= 0)
		printf("diameter:  %lld hops between PUs\n", (long long)d);
	else
		printf("diameter:  not computed (more than 4096 nodes on a graph)\n");
	printf("maps as:   %s\n", maps_as(c));
	topomatch_cluster_destroy(c);
	return CLI_OK;
}

/* ---------------------------------------------------------------- export */

static int do_export(const struct topo_args *a)
{
	if (!a->scotch)
		return cli_usage_error("topo", "export needs --scotch (the only format)");
	topomatch_cluster_t *c;
	int rc = load(a->file, &c);
	if (rc)
		return rc;
	char err[TOPOMATCH_ERRLEN];
	const topomatch_topology_t *t = topomatch_cluster_topology(c);
	int64_t pos = topomatch_topology_npu(t), npu = topomatch_cluster_npu(c);
	/* an irregular tree is embedded into a regular one (DESIGN.md): Scotch
	 * sees every position, and may map onto the ones no PU holds */
	if (pos != npu)
		cli_warn("topo", "%s: an irregular tree, exported as the regular tree that holds "
				 "it: %lld positions for %lld PUs (Scotch's mappings may use the %lld "
				 "empty ones; topomatch map -t %s does not)",
			 a->file, (long long)pos, (long long)npu, (long long)(pos - npu), a->file);
	FILE *f = a->out && strcmp(a->out, "-") ? fopen(a->out, "w") : stdout;
	if (!f) {
		cli_error("topo", "%s: cannot write", a->out);
		rc = CLI_FAIL;
	} else if (topomatch_topology_write_scotch(topomatch_cluster_topology(c), f, err)) {
		cli_error("topo", "%s", err);
		rc = CLI_FAIL;
	}
	if (f && f != stdout && fclose(f)) {
		cli_error("topo", "%s: write failed", a->out);
		rc = CLI_FAIL;
	}
	topomatch_cluster_destroy(c);
	return rc;
}

/* ---------------------------------------------------------- import-slurm */

static int do_import(const struct topo_args *a)
{
	char err[TOPOMATCH_ERRLEN];
	if (a->name && strpbrk(a->name, "\"\\:#\n"))
		return cli_usage_error("topo", "--name: no quotes, backslashes, ':' or '#'");
	if (topomatch_cluster_import_slurm(a->file, a->slurm_conf, a->name, stdout, err)) {
		cli_error("topo", "%s", err);
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cmd_topo(int argc, char **argv)
{
	struct topo_args a = { 0 };
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (!strcmp(a.action, "check"))
		return do_check(&a);
	if (!strcmp(a.action, "show"))
		return do_show(&a);
	if (!strcmp(a.action, "export"))
		return do_export(&a);
	if (!strcmp(a.action, "import-slurm"))
		return do_import(&a);
	return cli_usage_error("topo", "unknown action '%s' (check, show, export, import-slurm)",
			       a.action);
}
