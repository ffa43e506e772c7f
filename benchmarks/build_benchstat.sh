#!/usr/bin/env bash
# Build benchstat from source without the network, for benchmarks/suite.py.
#
#   benchmarks/build_benchstat.sh PERF_CHECKOUT MOREMATH_CHECKOUT [OUT]
#
# PERF_CHECKOUT: a git clone of golang.org/x/perf (github.com/golang/perf); MOREMATH_CHECKOUT: a clone of
# github.com/aclements/go-moremath, benchstat's one dependency. Debian's golang-go (Go 1.19) builds
# golang/perf at 71ba5bc (2025-04-07), the last commit before it used Go 1.21's built-in min and max;
# go-moremath at any commit (its fit package, which needs gonum, is left out). Only benchstat's own
# packages are copied, into a module that points at the local go-moremath, and built with GOPROXY=off.
# The measurements in the notes used golang/perf 71ba5bc and go-moremath c8bbc67.
set -euo pipefail
perf=${1:?golang/perf checkout}
moremath=${2:?aclements/go-moremath checkout}
out=${3:-$PWD/benchstat}
commit=${PERF_COMMIT:-71ba5bc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/perf" "$work/moremath"
git -C "$perf" archive "$commit" cmd/benchstat benchfmt benchmath benchproc benchunit | tar -x -C "$work/perf"
git -C "$moremath" archive HEAD | tar -x -C "$work/moremath"
rm -rf "$work/moremath/fit"
printf 'module github.com/aclements/go-moremath\n\ngo 1.19\n' > "$work/moremath/go.mod"
printf 'module golang.org/x/perf\n\ngo 1.19\n\nrequire github.com/aclements/go-moremath v0.0.0\n\nreplace github.com/aclements/go-moremath => ../moremath\n' > "$work/perf/go.mod"
(cd "$work/perf" && GOPROXY=off GOFLAGS=-mod=mod GOPATH="$work/gopath" go build -o "$out" ./cmd/benchstat)
echo "benchstat: $out (golang/perf $commit); run: BENCHSTAT=$out make bench-suite"
