#!/bin/sh
# t2030-worker-slots.sh - a worker that owns a node (issue 37): --slots N
# runs N trials at once, each slot a worker of its own; --gpus shares
# devices out (a list, SLURM's inherited CUDA_VISIBLE_DEVICES, or a fake
# nvidia-smi on PATH), never one device to two running trials;
# --cpus-per-trial pins slots to disjoint cores; SIGTERM releases every
# claim, kill -9 of the worker kills every slot and leaves the claims to
# expire.  No GPU is needed.  The test plays the orchestrator (put_trial),
# and no check waits on a clock: trials that must overlap meet at a
# barrier, which sequential trials could never pass.

. "${DEHBQ_SRC:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"
trap cleanup EXIT
plan 21
# the worker sets these per slot unless the operator did: start without
unset OMP_NUM_THREADS OPENBLAS_NUM_THREADS MKL_NUM_THREADS

# The trainer: logs "ID start|end CUDA_VISIBLE_DEVICES DEHBQ_GPUS cores"
# (one short O_APPEND write each), and the first BARRIER trials wait
# until all of them have started.
cat >"$T/trainer.sh" <<'EOF'
#!/bin/sh
echo $$ >>"$LOG.pids"
cores=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
echo "$DEHBQ_TRIAL_ID start ${CUDA_VISIBLE_DEVICES-unset} ${DEHBQ_GPUS-unset} $cores ${OMP_NUM_THREADS-unset} $(ulimit -v)" >>"$LOG"
id=$(expr "$DEHBQ_TRIAL_ID" + 0)
if [ "$id" -lt "$BARRIER" ]; then
	touch "$BAR/$id"
	n=0
	while [ "$(ls "$BAR" | wc -l)" -lt "$BARRIER" ]; do
		n=$((n + 1))
		[ $n -gt 3000 ] && exit 3 # 5 minutes: the others never came
		sleep 0.1
	done
	[ "$id" = 0 ] && cat "$DEHBQ_STUDY"/workers/*.json >"$LOG.workers" &&
		"$DQ" workers "$DEHBQ_STUDY" >"$LOG.table"
fi
[ -n "${HOLD:-}" ] && sleep 600
echo "$DEHBQ_TRIAL_ID end ${CUDA_VISIBLE_DEVICES-unset}" >>"$LOG"
echo '{"loss": 0.5}'
EOF
chmod +x "$T/trainer.sh"
DQ=$DEHBQ_BIN/dehbq
export DQ
# a fake nvidia-smi that lists three GPUs
mkdir -p "$T/bin"
cat >"$T/bin/nvidia-smi" <<'EOF'
#!/bin/sh
[ "$1" = -L ] || exit 2
echo "GPU 0: Fake A100 (UUID: GPU-00000000-0000-0000-0000-000000000000)"
echo "GPU 1: Fake A100 (UUID: GPU-11111111-1111-1111-1111-111111111111)"
echo "  MIG 1g.5gb Device 0: (UUID: MIG-22222222-2222-2222-2222-222222222222)"
echo "GPU 2: Fake A100 (UUID: GPU-33333333-3333-3333-3333-333333333333)"
EOF
chmod +x "$T/bin/nvidia-smi"

# run_slots NAME TRIALS BARRIER WORKER-OPTIONS...: a fresh study with
# TRIALS trials, one worker with the options; its log in $T/NAME.log
run_slots() {
	name=$1 n=$2
	S=$T/$name
	xstudy "$S"
	i=0
	while [ $i -lt "$n" ]; do
		put_trial "$S" "$(printf %08d $i)"
		i=$((i + 1))
	done
	BAR=$T/$name.bar LOG=$T/$name.trials
	mkdir -p "$BAR"
	export BAR LOG
	BARRIER=$3
	export BARRIER
	shift 3
	timeout 300 "$DEHBQ_BIN/dehbq-worker" --study "$S" --idle-exit 1 \
		"$@" -- "$T/trainer.sh" 2>"$T/$name.log"
}

# no_shared_device LOG: no device is in two trials that overlap (start and
# end order from the log's lines, which are appended in time order)
no_shared_device() {
	awk '
	$2 == "start" { n = split($3, d, ","); for (i = 1; i <= n; i++) { if (busy[d[i]]) bad = bad " " d[i]; busy[d[i]] = 1 } }
	$2 == "end" { n = split($3, d, ","); for (i = 1; i <= n; i++) busy[d[i]] = 0 }
	END { if (bad != "") { print "# shared:" bad; exit 1 } }' "$1"
}

# 1. --slots 4 --gpus 0,1,2,3: four trials at once, one device each
run_slots a 12 4 --slots 4 --gpus 0,1,2,3
rc=$?
check "(a) --slots 4 runs 12 trials, the first 4 at once (barrier passed)" \
	eval '[ $rc = 0 ] && [ "$(ls "$S/results" | wc -l)" = 12 ] &&
	! grep -l "\"failed\"" "$S"/results/*.json'
check "(a) each trial sees one of the devices, as CUDA_VISIBLE_DEVICES and DEHBQ_GPUS" \
	eval '[ "$(grep -c " start [0-3] [0-3] " "$LOG")" = 12 ] &&
	[ "$(grep " start " "$LOG" | awk "\$3 != \$4" | wc -l)" = 0 ]'
check "(a) the 4 trials at the barrier had 4 different devices" \
	eval '[ "$(grep "^0000000[0-3] start" "$LOG" | cut -d" " -f3 | sort -u | wc -l)" = 4 ]'
check "(a) no device was in two overlapping trials" no_shared_device "$LOG"
check "(a) the result's info names the device" \
	eval 'grep -h "\"gpus\":" "$S"/results/*.json | grep -c "\"[0-3]\"" | grep -qx 12'
check "(a) workers/ had 4 entries, one per slot, with slot and gpus" \
	eval '[ "$(grep -c "\"slot\":" "$LOG.workers")" = 4 ] &&
	[ "$(grep "\"gpus\":" "$LOG.workers" | sort -u | wc -l)" = 4 ]'
check "(a) dehbq workers lists the 4 slots, each with its slot and device" \
	eval '[ "$(awk "\$4 ~ /^[0-3]\$/ && \$5 == \$4 && / live\$/" "$LOG.table" | wc -l)" = 4 ]'
check "(a) the worker exits once every slot has exited" \
	eval '[ "$(grep -c "slot [0-3] exited (code 0)" "$T/a.log")" = 4 ]'

# 2. --gpus-per-trial 2: two slots of two devices
run_slots b 4 2 --gpus 0,1,2,3 --gpus-per-trial 2
check "(b) --gpus-per-trial 2: two slots, each with two devices" \
	eval '[ "$(grep -c "slot [01] exited (code 0)" "$T/b.log")" = 2 ] &&
	[ "$(grep "^0000000[01] start" "$LOG" | cut -d" " -f3 | sort -u | tr "\n" " ")" = "0,1 2,3 " ]'
check "(b) no device was in two overlapping trials" no_shared_device "$LOG"

# 3. --gpus auto inside a SLURM allocation: its list, never 0..N-1
(
	CUDA_VISIBLE_DEVICES=3,5
	export CUDA_VISIBLE_DEVICES
	run_slots c 4 2 --gpus auto
)
check "(c) --gpus auto with CUDA_VISIBLE_DEVICES=3,5: two slots, devices 3 and 5 only" \
	eval '[ "$(cut -d" " -f3 "$T/c.trials" | sort -u | tr "\n" " ")" = "3 5 " ] &&
	[ "$(grep -c "slot [01] exited (code 0)" "$T/c.log")" = 2 ]'

# 4. --gpus auto without a list: what nvidia-smi -L lists (its MIG line
# is not a GPU), or no GPU with one warning
(
	unset CUDA_VISIBLE_DEVICES
	PATH=$T/bin:$PATH run_slots d 3 3 --gpus auto
)
check "(d) --gpus auto: nvidia-smi's 3 GPUs, one slot each" \
	eval '[ "$(grep " start " "$T/d.trials" | cut -d" " -f3 | sort | tr "\n" " ")" = "0 1 2 " ]'
mkdir -p "$T/nogpu" # an nvidia-smi that finds no GPU, before any real one
printf '#!/bin/sh\necho "NVIDIA-SMI has failed" >&2\nexit 9\n' >"$T/nogpu/nvidia-smi"
chmod +x "$T/nogpu/nvidia-smi"
(
	unset CUDA_VISIBLE_DEVICES
	PATH=$T/nogpu:$PATH run_slots e 2 1 --gpus auto
)
check "(e) --gpus auto with no nvidia-smi: one slot, no GPU, one warning" \
	eval '[ "$(grep -c "no GPU found" "$T/e.log")" = 1 ] &&
	[ "$(grep -c " start unset unset " "$T/e.trials")" = 2 ]'

# 5. --cpus-per-trial 1: disjoint affinity masks, thread counts set
ncpu=$(nproc)
if [ "$ncpu" -ge 2 ]; then
	run_slots f 2 2 --slots 2 --cpus-per-trial 1
	check "(f) --cpus-per-trial 1: two trials at once on disjoint single cores, OMP_NUM_THREADS=1" \
		eval '[ "$(grep " start " "$LOG" | cut -d" " -f5 | sort -u | wc -l)" = 2 ] &&
		! grep " start " "$LOG" | cut -d" " -f5 | grep -q "[,-]" &&
		[ "$(grep " start " "$LOG" | cut -d" " -f6 | tr "\n" " ")" = "1 1 " ]'
else
	run_slots f 2 1 --slots 2 --cpus-per-trial 1
	check "(f) --cpus-per-trial 1 with one core: --slots 2 is refused" \
		grep -q "need 2 cores" "$T/f.log"
fi

# --mem-per-trial: the trainer's address-space limit, not the worker's
run_slots m 2 1 --mem-per-trial 512M
check "(m) --mem-per-trial 512M: each trainer's ulimit -v is 524288 KiB, and both trials ran" \
	eval '[ "$(grep " start " "$LOG" | cut -d" " -f7 | tr "\n" " ")" = "524288 524288 " ] &&
	[ "$(ls "$S/results" | wc -l)" = 2 ]'

# 6. Bad options: one line naming the option, exit 100, nothing run
bad() {
	"$DEHBQ_BIN/dehbq-worker" --study "$S" --idle-exit 1 "$@" -- true \
		2>"$T/bad.log"
	[ $? = 100 ] && [ "$(wc -l <"$T/bad.log")" = 1 ]
}
check "(g) --slots 3 with 2 GPUs is refused" \
	eval 'bad --slots 3 --gpus 0,1 && grep -q "need 3 devices" "$T/bad.log"'
check "(g) a bad device id, a repeated one, --gpus-per-trial without --gpus" \
	eval 'bad --gpus "0;rm" && grep -q "not a device id" "$T/bad.log" &&
	bad --gpus 1,1 && grep -q "listed twice" "$T/bad.log" &&
	bad --gpus-per-trial 2 && grep -q "needs --gpus" "$T/bad.log" &&
	bad --slots 0 && grep -q "slots" "$T/bad.log" &&
	bad --gpus 0 --gpus-per-trial 2 && grep -q "needs more than" "$T/bad.log" &&
	bad --gpus all && grep -q "not a device id" "$T/bad.log"'

# 7. SIGTERM releases every claim; kill -9 kills every slot and leaves
# the claims to expire (their heartbeats stop)
at_barrier() { [ "$(ls "$BAR" | wc -l)" = 2 ]; }
hold() {
	S=$T/$1
	xstudy "$S"
	put_trial "$S" 00000000
	put_trial "$S" 00000001
	BAR=$T/$1.bar LOG=$T/$1.trials BARRIER=2 HOLD=1
	mkdir -p "$BAR"
	export BAR LOG BARRIER HOLD
	"$DEHBQ_BIN/dehbq-worker" --study "$S" --slots 2 -- \
		"$T/trainer.sh" 2>"$T/$1.log" &
	wpid=$!
	BG_PIDS="$BG_PIDS $wpid"
	wait_for 120 at_barrier
	unset HOLD
}
hold h
kill -TERM $wpid
wait $wpid
rc=$?
check "(h) SIGTERM: the worker exits 0 and both claims are back in pending/" \
	eval '[ $rc = 0 ] && [ "$(ls "$S/claimed" | wc -l)" = 0 ] &&
	[ "$(ls "$S/pending" | wc -l)" = 2 ]'
hold k
slots=$(sed -n 's/.*"pid":[[:space:]]*\([0-9]*\).*/\1/p' "$S"/workers/*.json)
kill -9 $wpid
wait $wpid 2>/dev/null
gone() { # a zombie that no init reaps is gone too
	for p in $slots; do
		kill -0 "$p" 2>/dev/null && ! grep -q '^State:.*Z' /proc/"$p"/status 2>/dev/null &&
			return 1
	done
	return 0
}
wait_for 60 gone
check "(k) kill -9 of the worker kills both slots (2 pids: $(echo $slots))" \
	eval '[ "$(echo $slots | wc -w)" = 2 ] && gone'
check "(k) their claims stay in claimed/, for the lease to expire" \
	eval '[ "$(ls "$S/claimed" | wc -l)" = 2 ]'
# the trainers of the killed slots were orphaned, as a killed worker's
# are: end their process groups (each its own, the trainer's pid)
for p in $(cat "$T"/k.trials.pids 2>/dev/null); do kill -9 "-$p" 2>/dev/null; done
check_no_leftovers
