# shellcheck shell=bash
# The bisect group: after each patch of the base (a stack: every series,
# in stack order), mm/ and the directories it touches compile in every
# config set the base has. Checks name the patch as series/file.
# Sourced by scripts/run-tests.sh, whose check(), note(), logdir, patches,
# base_tree, full, cpus and want() it uses.
# shellcheck disable=SC2154

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

bisect_build() {
	local set=$1 commit=$2 tree out targets
	tree=$(tree_dir bisect)
	out=$(build_dir bisect "$set")
	git -C "$tree" checkout -q -f --detach "$commit"
	mapfile -t targets < <(bisect_targets "$commit")
	make -s -C "$tree" O="$out" ARCH=x86_64 -j"$(nproc)" "${targets[@]}"
}


group_bisect() {
	note "group bisect"
	nr=${#patches[@]}
	bisect_sets=(nomemcg test)
	[ -z "${BASE_HAS_SLAB:-}" ] || bisect_sets+=(slab)
	for set in "${bisect_sets[@]}"; do
		# Configure once per config set (an O= dir of the scratch tree).
		check "bisect: configure $set" "$REPO_ROOT/scripts/build-kernel.sh" bisect "$set" prepare
	done
	for i in $(seq 1 "$nr"); do
		commit=$(git -C "$(src_repo)" rev-parse "$(series_branch)~$((nr - i))")
		for set in "${bisect_sets[@]}"; do
			check "bisect: patch $i/$nr ($(patch_label "${patches[i - 1]}")): mm/ and touched directories build ($set)" bisect_build "$set" "$commit"
		done
	done
	git -C "$(tree_dir bisect)" checkout -q -f --detach "$(series_branch)"
}
