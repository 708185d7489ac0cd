#!/usr/bin/env bash
# The CUDA backend under the parts of warpwatch.service's sandbox that touch the driver,
# on a GPU host without systemd running (the lent GPU machines). A manual check, as root:
# runs the GPU suites (warpwatch_gpu_tests) as an unprivileged user without capabilities,
# with no_new_privs, /proc mounted pid-only and hiding other users' processes (ProcSubset=pid,
# ProtectProc=invisible), and systemd's MemoryDenyWriteExecute= seccomp rule (no writable
# and executable mmap, no mprotect or pkey_mprotect to executable, no shmat with SHM_EXEC),
# once as built and once with CUDA_FORCE_PTX_JIT=1 (the driver compiles the embedded PTX).
# It prints the device nodes the process held, for DeviceAllow=.
# Not covered: the device cgroup, SystemCallFilter= and PrivateUsers=.
#   cuda_sandbox_check.sh WARPWATCH_GPU_TESTS [GTEST_FILTER]
set -euo pipefail
tests=$(realpath "$1")
filter=${2:-'CudaDevice.*:CudaStream.SmallPatterns:CudaStream.PipelinedBatchesAcrossTrims:CudaWindow.Dtw:CudaManyPairs.SevenByFive'}
[ "$(id -u)" -eq 0 ] || { echo "needs root (mount, setpriv)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"

# mdwe_exec PROGRAM ARGS...: systemd's MemoryDenyWriteExecute= filter, checked, then exec.
cat >"$work/mdwe_exec.c" <<'C'
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#define ARG(f) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, f))
#define IS(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, t, f)
#define HAS(k, t, f) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, k, t, f)
#define REFUSE BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1)
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
static struct sock_filter rules[] = {
    ARG(nr),
    IS(SYS_mmap, 0, 5), ARG(args[2]), BPF_STMT(BPF_ALU | BPF_AND | BPF_K, PROT_WRITE | PROT_EXEC),
    IS(PROT_WRITE | PROT_EXEC, 0, 1), REFUSE, ALLOW,
    IS(SYS_mprotect, 1, 0), IS(SYS_pkey_mprotect, 0, 4), ARG(args[2]), HAS(PROT_EXEC, 0, 1),
    REFUSE, ALLOW,
    IS(SYS_shmat, 0, 3), ARG(args[2]), HAS(0100000 /* SHM_EXEC */, 0, 1), REFUSE, ALLOW};
int main(int argc, char** argv) {
  struct sock_fprog prog = {sizeof rules / sizeof *rules, rules};
  if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
    perror("mdwe_exec");
    return 2;
  }
  void* wx = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void* rw = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (wx != MAP_FAILED || !mprotect(rw, 4096, PROT_READ | PROT_EXEC)) {
    fprintf(stderr, "mdwe_exec: the filter lets memory become executable\n");
    return 2;
  }
  execv(argv[1], argv + 1);
  perror("mdwe_exec: exec");
  return 3;
}
C
cc -O2 -o "$work/mdwe_exec" "$work/mdwe_exec.c"
cp "$tests" "$work/gpu_tests"
chmod 755 "$work/mdwe_exec" "$work/gpu_tests"

status=0
for jit in 0 1; do
  echo "== CUDA_FORCE_PTX_JIT=$jit"
  unshare -m --propagation private sh -c "mount -t proc -o subset=pid,hidepid=invisible proc /proc &&
    exec setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs --inh-caps=-all \
      --bounding-set=-all env -i LD_LIBRARY_PATH='${LD_LIBRARY_PATH:-}' CUDA_FORCE_PTX_JIT=$jit \
      $work/mdwe_exec $work/gpu_tests --gtest_filter='$filter'" >"$work/out" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do  # the device nodes it holds, while it runs
    for fd in /proc/"$pid"/fd/*; do readlink "$fd"; done 2>/dev/null | grep '^/dev/[a-z]' || true
    sleep 0.2
  done | sort -u | tr '\n' ' '
  echo
  wait "$pid" || status=1
  grep -E '^\[  (PASSED|FAILED)|SKIPPED \] [0-9]+ test|mdwe_exec' "$work/out" || { cat "$work/out"; status=1; }
  ! grep -q 'SKIPPED \] [0-9]' "$work/out" || status=1  # a skip (no device) is not a pass
done
exit $status
