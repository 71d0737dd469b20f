# Shell functions shared by fuzz/run.sh and fuzz/until_plateau.sh (sourced,
# not run).  They read B (the fuzz folder) and FUZZ_NO_REGRESSIONS.

# The format a target fuzzes ("" for the all-format ones).
target_format() { case "$1" in *_*) echo "${1#*_}" ;; *) echo "" ;; esac; }

# Seeds of a target, flat, rebuilt every run: corpus/<format>/ (valid
# files), corpus/regressions/ (those naming the format), corpus/grown/<format>/,
# corpus/crafted/<format>/ and the golden inputs tests/<format>/*/input;
# every folder for an all-format target.
make_seeds() { # target -> dir
    local t=$1 fmt d f n
    fmt=$(target_format "$t")
    d=$B/seeds/$t
    rm -rf "$d"; mkdir -p "$d"
    for f in corpus/*/*; do
        [ -f "$f" ] || continue
        case "$f" in */README*) continue ;; esac
        case "$f" in
        corpus/regressions/*)
            [ "${FUZZ_NO_REGRESSIONS:-0}" = 1 ] && continue
            [ -n "$fmt" ] && case "$f" in *-"$fmt"-*) ;; *) continue ;; esac ;;
        *) [ -n "$fmt" ] && [ "$f" != "${f#corpus/$fmt/}" ] || [ -z "$fmt" ] || continue ;;
        esac
        n=${f#corpus/}; cp "$f" "$d/${n//\//__}"
    done
    # make fuzz-merge's seeds, and invalid or lenient-only inputs crafted
    # by hand (corpus/crafted/<format>/: a seed that is wrong in one way
    # leads the fuzzer to the check behind it)
    for f in corpus/grown/*/* corpus/crafted/*/*; do
        [ -f "$f" ] || continue
        case "$f" in */README*) continue ;; esac
        [ -n "$fmt" ] && [ "$f" = "${f#corpus/*/$fmt/}" ] && continue
        n=${f#corpus/}; cp "$f" "$d/${n//\//__}"
    done
    for f in tests/*/*/input; do
        [ -f "$f" ] || continue
        [ -n "$fmt" ] && [ "$f" = "${f#tests/$fmt/}" ] && continue
        n=${f#tests/}; n=${n%/input}; cp "$f" "$d/golden__${n//\//__}"
    done
    echo "$d"
}

# CPU seconds (user + system) used so far by a process and everything below
# it, the children it has already reaped included (/proc/<pid>/stat fields
# 14-17): afl-fuzz, its fork server, and the runs the fork server reaped.
tree_cpu_seconds() { # pid
    local pids=$1 more p ticks=0
    more=$1
    while [ -n "$more" ]; do
        more=$(for p in $more; do cat /proc/"$p"/task/*/children 2>/dev/null; done | tr ' ' '\n' | grep . )
        pids="$pids $more"
    done
    for p in $pids; do
        [ -r /proc/"$p"/stat ] || continue
        ticks=$(( ticks + $(sed 's/^.*) //' /proc/"$p"/stat | awk '{print $12 + $13 + $14 + $15}') ))
    done
    echo $(( ticks / $(getconf CLK_TCK) ))
}
