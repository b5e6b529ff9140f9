#!/bin/bash
# Check that config-fragments/distro-<base>.config still says what Debian's
# own amd64 kernel config for the base says (scripts/fetch-debian-config.sh):
# every line of the fragment agrees with Debian ("is not set" also agrees
# with a symbol Debian's config does not mention), and every symbol of
# Debian's config that the fragment's "# match:" expression selects is in
# the fragment with Debian's value. Prints each disagreement.
# Usage: [BASE=6.1] scripts/check-distro-config.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
no_args "$0" "$@"
load_base
frag="$REPO_ROOT/config-fragments/distro-$BASE.config"
[ -f "$frag" ] || die "no distro config for base $BASE ($frag)"
re=$(sed -n 's/^# match: //p' "$frag")
[ -n "$re" ] || die "$frag has no '# match:' line"
differs=$(sed -n 's/^# differs: \(CONFIG_[A-Z0-9_]*\) .*/\1/p' "$frag" | paste -sd' ' -)
deb=$("$REPO_ROOT/scripts/fetch-debian-config.sh" | sed -n 1p)

# "SYMBOL VALUE" per line; "n" for "is not set".
norm() {
	sed -n -E 's/^(CONFIG_[A-Z0-9_]+)=(.*)/\1 \2/p; s/^# (CONFIG_[A-Z0-9_]+) is not set$/\1 n/p' "$1"
}
awk -v re="$re" -v frag="${frag#"$REPO_ROOT"/}" -v differs="$differs" '
	BEGIN { n = split(differs, sk, " "); for (i = 1; i <= n; i++) skip[sk[i]] = 1 }
	FNR == 1 { file++ }
	file == 1 { deb[$1] = $2; next }
	{ mine[$1] = $2 }
	END {
		bad = 0
		for (s in mine) {
			d = (s in deb) ? deb[s] : "n"
			if (d != mine[s]) {
				printf "%s: %s=%s, Debian: %s\n", frag, s, mine[s], d
				bad = 1
			}
		}
		for (s in deb) {
			if (s ~ re && !(s in mine) && !(s in skip)) {
				printf "%s: missing %s=%s (Debian sets it; the match: expression selects it)\n", frag, s, deb[s]
				bad = 1
			}
		}
		exit bad
	}' <(norm "$deb") <(norm "$frag")
