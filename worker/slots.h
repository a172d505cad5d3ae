/*
 * slots.h - a worker that owns a node: N slots, each a worker of its own,
 * with its own GPUs, cores and memory limit
 *
 * dehbq-worker --slots N runs N slot processes, forked from the worker
 * before it takes an identity.  Each is a whole worker (its own worker
 * id, registry entry, claims, heartbeats, work directories and logs), so
 * the orchestrator and the protocol see N workers.  What a slot owns is
 * fixed at start and disjoint from every other slot's:
 *   - GPUs: slot i gets devices [i*K, (i+1)*K) of the device list
 *     (--gpus LIST, or auto: the inherited CUDA_VISIBLE_DEVICES, else
 *     what `nvidia-smi -L` lists), as CUDA_VISIBLE_DEVICES and DEHBQ_GPUS;
 *   - cores: slot i is pinned (sched_setaffinity) to cores [i*C, (i+1)*C)
 *     of the worker's own affinity mask (SLURM's allocation), and
 *     OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and MKL_NUM_THREADS are C
 *     unless the operator set them;
 *   - memory: --mem-per-trial is the RLIMIT_AS of each trainer (run.c
 *     sets it in the trainer's process; this file only checks it against
 *     the hard limit).
 * A slot runs one trial at a time, so no device or core is ever given to
 * two running trials.
 *
 * The parent only supervises: it forwards SIGTERM and SIGINT to every
 * slot (each releases its claim) and exits when all have exited, with
 * the first non-zero exit code.  A slot dies with its parent
 * (PR_SET_PDEATHSIG SIGKILL): kill -9 of the worker is kill -9 of every
 * slot, and their claims are requeued after the lease; their trainers,
 * each in a process group of its own, run on to their end as a killed
 * single worker's do (under SLURM the job's cgroup ends them).  A slot
 * that exits is not replaced.
 *
 * Error handling: slots_plan() returns DEHBQ_EINVAL with one line in err
 * naming the option; DEHBQ_ESYS (errno) from the system calls.  Warnings
 * (auto found no GPU) go to the logger.
 * Ownership: a struct slot_plan is caller storage; it copies what it needs.
 */
#ifndef DEHBQ_SLOTS_H
#define DEHBQ_SLOTS_H

#include <stddef.h>

struct logmsg;
struct wake;
struct wopts;

#define SLOTS_MAX	   1024 /* --slots */
#define SLOTS_DEV_MAX	   256	/* devices in a list */
#define SLOTS_DEV_LEN	   64	/* bytes of one device id, NUL included */
#define SLOTS_CPU_MAX	   4096 /* cores of an affinity mask */
#define SLOTS_GPUS_PER_MAX 64	/* --gpus-per-trial: the list fits 4 KiB */

struct slot_plan {
	int n;					/* slots, >= 1 */
	int ndev;				/* devices, 0: none */
	int gpus_per;				/* K, when ndev > 0 */
	char dev[SLOTS_DEV_MAX][SLOTS_DEV_LEN]; /* device ids */
	int ncpu;				/* cores listed in cpu */
	int cpus_per;				/* C, 0: no pinning */
	int cpu[SLOTS_CPU_MAX];			/* the worker's cores */
	unsigned long long mem;			/* bytes, 0: no limit */
};

/* 1 when the options ask for slots, devices, cores or a memory limit. */
int slots_wanted(const struct wopts *o);

/*
 * The plan for o: devices, cores and the slot count (--slots, else the
 * devices divided by --gpus-per-trial, else 1), checked against what
 * exists.
 */
int slots_plan(const struct wopts *o, struct slot_plan *p, struct logmsg *lg,
	       char *err);

/*
 * Fork p->n slot processes.  In each slot returns DEHBQ_OK with *slot its
 * index (0..n-1); in the parent, once every slot has exited, returns
 * DEHBQ_EDONE with *code the exit code.  DEHBQ_ESYS when the first fork
 * fails (the slots already started are stopped).
 */
int slots_run(const struct slot_plan *p, struct wake *wk, struct logmsg *lg,
	      int *slot, int *code);

/*
 * In slot i's process: set its environment and affinity.
 * gpus (size bytes) gets its device list ("" when none).
 */
int slots_apply(const struct slot_plan *p, int i, char *gpus, size_t size,
		char *err);

/*
 * All of the above for dehbq-worker: plan, fork when there is more than
 * one slot, and apply this slot's share.  DEHBQ_OK in a slot (*slot its
 * index, or -1 when the worker is its only slot) with gpus its devices;
 * else the caller exits with *code: the parent once its slots exited, or
 * an error (printed on stderr; 100 for the options, 111 for the system,
 * dehbq-worker's exit codes).
 */
int slots_start(const struct wopts *o, struct wake *wk, struct logmsg *lg,
		int *slot, char *gpus, size_t size, int *code);

#endif
