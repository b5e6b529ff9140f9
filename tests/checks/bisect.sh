# shellcheck shell=bash
# The bisect group: after each patch of the base (a stack: every series,
# in stack order), mm/ and the directories it touches compile in every
# config set the base has, and the compile prints no warning in a file the
# patch touches that it did not print before the patch (as ktest.pl's
# patchcheck with its warnings file: the base's own warnings do not fail).
# Checks name the patch as series/file.
# Sourced by scripts/run-tests.sh; uses check(), note(), logdir, patches,
# base_tree, full, cpus and want() of tests/checks/lib.sh.
# shellcheck disable=SC2154
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"

# What to compile after each patch: the directories of the .c files it
# touches (Kbuild then compiles what the config enables there) and mm/,
# where everything that includes mm/slab.h and the memcg hooks lives.
bisect_targets() {
	local commit=$1 f
	{
		echo mm/
		echo kernel/fork.o
		for f in $(git -C "$(src_repo)" diff-tree --no-commit-id --name-only -r "$commit" -- '*.c' | grep -v '^tools/'); do
			echo "${f%/*}/"
		done
	} | sort -u
}

# bisect_touched COMMIT: the files COMMIT changes (headers too), one a
# line, relative to the tree: where a new warning fails the patch.
bisect_touched() {
	git -C "$(src_repo)" diff-tree --no-commit-id --name-only -r "$1"
}

# bisect_make SET REV LOG TARGET...: check REV out in the bisect tree and
# compile TARGET... in SET's build directory (incremental: what REV changed
# and what depends on it), the output on stdout and in LOG. A target whose
# directory REV lacks (the parent of a patch that adds it) is left out.
bisect_make() {
	local set=$1 rev=$2 log=$3 tree out t have=()
	shift 3
	tree=$(tree_dir bisect)
	out=$(build_dir bisect "$set")
	git -C "$tree" checkout -q -f --detach "$rev" || return 1
	for t in "$@"; do
		[ ! -d "$tree/${t%/*}" ] || have+=("$t")
	done
	make -s -C "$tree" O="$out" ARCH=x86_64 -j"$(nproc)" "${have[@]}" 2>&1 | tee "$log"
	return "${PIPESTATUS[0]}"
}

# bisect_warnings SRC [WANTED] <LOG: the compiler's warnings in a make
# log, one a line, sorted, each once: "FILE: warning: TEXT [-WOPTION]",
# FILE relative to the source tree SRC (or to the build directory:
# generated files). Line and column are dropped, so that a warning the
# patch only moved is the same warning. With WANTED (a file of such
# lines): the log's own lines of those warnings instead, in log order,
# each after the line that names its function, if the log has one.
bisect_warnings() {
	LC_ALL=C awk -v src="${1%/}/" -v want="${2:-}" '
		BEGIN { if (want != "") while ((getline w <want) > 0) wanted[w] = 1 }
		{ sub(/\r$/, "") }
		/: In function / { context = $0; next }
		/: At top level:$/ { context = ""; next }
		match($0, /^[^ :]+:[0-9]+(:[0-9]+)?: warning: /) {
			file = substr($0, 1, RLENGTH)
			text = substr($0, RLENGTH + 1)
			sub(/:[0-9]+(:[0-9]+)?: warning: $/, "", file)
			if (index(file, src) == 1)
				file = substr(file, length(src) + 1)
			sub(/^\.\//, "", file)
			w = file ": warning: " text
			if (want == "") print w
			else if (w in wanted) {
				if (context != "" && context != shown) print context
				shown = context
				print
			}
		}' | if [ -z "${2:-}" ]; then LC_ALL=C sort -u; else cat; fi
}

# bisect_new_warnings KNOWN SRC FILE... <LOG: the warnings of LOG
# (bisect_warnings) in the files FILE... that the file KNOWN (warnings of
# that form, one a line) lacks.
bisect_new_warnings() {
	local known=$1 src=$2
	shift 2
	bisect_warnings "$src" | LC_ALL=C awk '
		NR == FNR { touched[$0] = 1; next }
		{ f = $0; sub(/: warning: .*/, "", f) }
		f in touched' <(printf '%s\n' "$@") - |
		LC_ALL=C comm -23 - <(LC_ALL=C sort -u "$known")
}

# bisect_remember KNOWN SRC FILE... <LOG: KNOWN becomes the warnings the
# config's objects print after this build: LOG's, and those KNOWN had, but
# for the files FILE... the patch touched (every object that includes one
# was compiled again: LOG has all of theirs).
bisect_remember() {
	local known=$1 src=$2 old
	shift 2
	old=$(LC_ALL=C awk 'NR == FNR { touched[$0] = 1; next }
		{ f = $0; sub(/: warning: .*/, "", f) }
		!(f in touched)' <(printf '%s\n' "$@") "$known")
	{ [ -z "$old" ] || printf '%s\n' "$old"; bisect_warnings "$src"; } | LC_ALL=C sort -u >"$known.new"
	mv "$known.new" "$known"
}

# bisect_build SET COMMIT LABEL: compile COMMIT's targets in SET's build
# directory (what the previous patch's build left: only what COMMIT changes
# is compiled again). Fails on an error, or on a warning in a file COMMIT
# touches that the compile did not print before COMMIT. "Before" is what
# this config's builds printed so far ($logdir/bisect-SET.warnings, kept
# from patch to patch); a warning not in it (the first patch: nothing is
# yet) is looked for in a compile of COMMIT's parent, which compiles again
# only what COMMIT changed, so that the base's own warnings do not fail.
bisect_build() {
	local set=$1 commit=$2 label=$3 src log known new targets touched
	src=$(tree_dir bisect)
	log="$logdir/bisect-$set.log" known="$logdir/bisect-$set.warnings"
	mapfile -t targets < <(bisect_targets "$commit")
	mapfile -t touched < <(bisect_touched "$commit")
	[ -f "$known" ] || : >"$known"
	bisect_make "$set" "$commit" "$log" "${targets[@]}" || return 1
	# gcc names the files by the tree's real path (kbuild's abs_srctree):
	# a symlink in CACHE_DIR must not hide a new warning.
	[ ! -d "$src" ] || src=$(cd "$src" && pwd -P)
	new=$(bisect_new_warnings "$known" "$src" "${touched[@]}" <"$log") || return 1
	if [ -n "$new" ]; then
		echo "== warnings in the files of the patch that no build of $set printed so far; compiling its parent to compare"
		if ! bisect_make "$set" "$commit^" "$log.parent" "${targets[@]}"; then
			echo "error: the parent of patch $label does not compile ($set): cannot tell its warnings from the patch's"
			return 1
		fi
		new=$(LC_ALL=C comm -23 <(printf '%s\n' "$new") <(bisect_warnings "$src" <"$log.parent"))
	fi
	bisect_remember "$known" "$src" "${touched[@]}" <"$log" || return 1
	[ -n "$new" ] || return 0
	echo "error: patch $label adds compiler warnings (config $set) in the files it touches:"
	printf '%s\n' "$new" | sed 's/^/  /'
	echo "as the compiler printed them:"
	bisect_warnings "$src" <(printf '%s\n' "$new") <"$log" | sed "s|^$src/||; s/^/  /"
	return 1
}

group_bisect() {
	note "group bisect"
	nr=${#patches[@]}
	bisect_sets=(nomemcg test)
	[ -z "${BASE_HAS_SLAB:-}" ] || bisect_sets+=(slab)
	for set in "${bisect_sets[@]}"; do
		# Configure once per config set (an O= dir of the scratch tree).
		check "bisect: configure $set" "$REPO_ROOT/scripts/build-kernel.sh" bisect "$set" prepare
		rm -f "$logdir/bisect-$set.warnings"
	done
	for i in $(seq 1 "$nr"); do
		commit=$(git -C "$(src_repo)" rev-parse "$(series_branch)~$((nr - i))")
		label="$i/$nr ($(patch_label "${patches[i - 1]}"))"
		for set in "${bisect_sets[@]}"; do
			check "bisect: patch $label: mm/ and touched directories build ($set)" bisect_build "$set" "$commit" "$label"
		done
	done
	git -C "$(tree_dir bisect)" checkout -q -f --detach "$(series_branch)"
}
