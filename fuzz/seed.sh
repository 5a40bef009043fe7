#!/bin/sh
# fuzz/seed.sh OUT -- write each fuzz target's seed corpus under OUT/TARGET/
# from the test fixtures, the shipped scenarios and fuzz/seeds/.  Targets
# that cover several formats take the first byte as the format's index
# (fuzz.h); each file is put behind the byte of the format it is written
# in, and once more behind the byte that also turns on skipping bad rows.
set -e
out=$1
F=tests/fixtures/traces
rm -rf "$out" && mkdir -p "$out"
for t in scenario trace requests nodelist weights prices genspec import cli report profile; do
    mkdir -p "$out/$t"
done
# put TARGET BYTE FILE: FILE behind the selector byte BYTE
put() {
    printf "\\$(printf %03o "$2")" >"$out/$1/$2-$(basename "$3")"
    cat "$3" >>"$out/$1/$2-$(basename "$3")"
}
cp scenarios/*.json tests/fixtures/sharing/*.json "$out/scenario/"
gpusim=${GPUSIM:-./gpusim}
[ -x "$gpusim" ] && "$gpusim" scenario quickstart >"$out/scenario/quickstart.json"
# job trace formats, in gs_trace_formats order (traces/formats.c): native
# alibaba philly sia swf, then the rest; fuzz_trace takes the first byte
# modulo their count nf, and byte k + nf is format k with skip_bad_rows.
# nf is counted from the list gpusim prints, in the same order, so a new
# format does not shift the seeds' bytes onto other formats.
nf=$("$gpusim" policies 2>/dev/null | sed -n '/^trace formats:/,$p' | grep -c '^  ')
[ "$nf" -ge 5 ] 2>/dev/null || { echo "fuzz/seed.sh: cannot count the trace formats with $gpusim" >&2; exit 1; }
for f in fuzz/seeds/native.csv fuzz/seeds/native-lines.csv; do put trace 0 $f; put trace $((0 + nf)) $f; done
for f in $F/ali_*.csv; do put trace 1 $f; done
put trace $((1 + nf)) $F/ali_mixed.csv
for f in $F/philly_*.trace; do put trace 2 $f; done
for f in $F/sia_*.csv; do put trace 3 $f; done
for f in $F/swf_*; do put trace 4 $f; done
put trace $((4 + nf)) $F/swf_bad_number.swf
# request formats: azure-llm mooncake splitwise requests
for f in $F/azure_*.csv; do put requests 0 $f; done
for f in $F/mooncake_*.jsonl; do put requests 1 $f; done
put requests 2 fuzz/seeds/splitwise.csv
put requests 3 fuzz/seeds/requests.csv
put requests 7 fuzz/seeds/requests.csv
# node lists: alibaba-gpu-2023 alibaba-gpu-2026
for f in $F/nodes_*.csv; do put nodelist 0 $f; put nodelist 1 $f; done
cp policies/rllite-quickstart.json "$out/weights/"
cp scenarios/cloud-spot-price.csv fuzz/seeds/price-*.csv* "$out/prices/"
cp fuzz/seeds/genspec.json "$out/genspec/"
# kernel profiles (fuzz_profile): mlp.csv, all_reduce.csv, serving
# times (Splitwise's perf_model.csv layout) and send_recv.csv
put profile 0 fuzz/seeds/mlp.csv
put profile 1 fuzz/seeds/all_reduce.csv
put profile 2 fuzz/seeds/perf_model.csv
put profile 3 fuzz/seeds/send_recv.csv
cp scenarios/mixed-tier-generated.json "$out/genspec/"
# the kept corpora of the targets without fixtures (fuzz/corpus/TARGET:
# a campaign's corpus, minimized with -merge=1)
for t in cli report; do
    [ -d fuzz/corpus/$t ] && cp fuzz/corpus/$t/* "$out/$t/" 2>/dev/null
done
# inputs that once failed, kept as regression cases
for t in scenario trace requests nodelist weights prices genspec import cli report profile; do
    [ -d fuzz/regress/$t ] && cp fuzz/regress/$t/* "$out/$t/" 2>/dev/null
done
true
# the cluster importers (fuzz_import): k8s-pods slurm-sacct k8s-nodes
# slurm-nodes kueue dcgm k8s-ksm; 7 + k also skips bad rows
I=tests/fixtures/import
# (put names a seed by its file's name: the folders' pods.json, nodes.json
# and sacct.txt are copied under their folder's name first)
S=$out/import-src
mkdir -p "$S"
for d in gangs taints waits slurm-mig; do
    for f in $I/$d/*.json $I/$d/*.txt; do
        [ -f "$f" ] && cp "$f" "$S/$d-$(basename "$f")"
    done
done
for f in $I/k8s-snaps/*.json $I/k8s-pods-*.json $S/*pods*.json; do put import 0 $f; done
put import 7 $I/k8s-pods-bad-qty.json
put import 7 $S/taints-pods-bad.json
for f in $I/sacct*.txt $S/slurm-mig-sacct.txt fuzz/seeds/sacct-*.txt; do put import 1 $f; done
put import 8 $I/sacct-bad-tres.txt
put import 8 $S/slurm-mig-sacct.txt
for f in $I/k8s-nodes*.json $S/*nodes.json; do put import 2 $f; done
for f in $I/scontrol-nodes*.txt $S/slurm-mig-nodes*.txt fuzz/seeds/scontrol-*.txt; do put import 3 $f; done
put import 4 $I/kueue.json
for f in $I/dcgm/*.json $I/dcgm-*.json; do put import 5 $f; done
for f in $I/ksm/*.json $I/waits/ksm/*.json; do put import 6 $f; done
rm -rf "$S"
