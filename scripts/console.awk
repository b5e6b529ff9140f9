# The one host-side parser of a guest's console log: the HARNESS-* markers
# of tests/contract.conf and the TAP lines inside its tap: blocks. Used
# through scripts/lib/console.sh (console_result, console_block, ...);
# q= picks the question, name= its argument:
#   q=result    the job's exit code: N of the last "HARNESS-RESULT rc=N"
#               (nothing if the guest printed none)
#   q=block     the lines between "HARNESS-BEGIN name" and "HARNESS-END
#               name" (a file the guest printed with emit_file)
#   q=tap       "program:test status" (pass, fail, skip) for every TAP
#               result of a tap: block; "program:(exit) fail" for a program
#               that exited non-zero (not kselftest's skip code 4) without
#               a failed test: a crash; "program:(timeout) fail" for one
#               killed at its time limit (rc 137 with secs >= limit)
#   q=why       name=PROGRAM:TEST: what the guest printed about that failed
#               test: up to 8 comment lines before its result since the
#               previous result, and the result; for TEST "(exit)" or
#               "(timeout)", the program's last 8 lines
#   q=progress  the markers and TAP result lines, as they come
#   q=cpus      N of "HARNESS: N CPUs online"

function tap_line() { return $0 ~ /^(not )?ok [0-9]+ / }

# show(k): the last k lines buffered for q=why.
function show(k,   i) {
	for (i = (n > k ? n - k : 0); i < n; i++)
		print "  guest: " buf[i]
}

q == "progress" {
	if (/^HARNESS-(START|RESULT|EXIT)/ || tap_line()) {
		print "    " $0
		fflush()
	}
	next
}
q == "result" && /^HARNESS-RESULT rc=/ {
	rc = substr($2, 4)
	sub(/[^0-9].*/, "", rc)
	next
}
q == "cpus" && /^HARNESS: [0-9]+ CPUs online/ { cpus = $2; next }
q == "block" {
	if ($0 == "HARNESS-BEGIN " name) { inblock = 1; next }
	if ($0 == "HARNESS-END " name) { inblock = 0; next }
	if (inblock)
		print
	next
}

# q=tap and q=why: the tap: blocks.
/^HARNESS-BEGIN tap:/ {
	prog = substr($2, 5)
	n = 0
	next
}
/^HARNESS-END tap:/ {
	if (q == "why" && prog == wprog && wtest ~ /^\(/)
		show(8)
	prog = ""
	next
}
q == "tap" && prog != "" && tap_line() {
	st = ($1 == "not") ? "fail" : "pass"
	i = ($1 == "not") ? 4 : 3
	# kselftest: "ok 3 # SKIP name..."; TAP: "ok 3 name # SKIP why".
	if ($i == "#" && toupper($(i + 1)) == "SKIP") {
		st = "skip"
		i += 2
	} else if ($(i + 1) == "#" && toupper($(i + 2)) == "SKIP") {
		st = "skip"
	}
	print prog ":" $i, st
	if (st == "fail")
		failed[prog] = 1
	next
}
q == "tap" && /^HARNESS-EXIT / {
	delete v
	for (f = 3; f <= NF; f++) {
		split($f, a, "=")
		v[a[1]] = a[2]
	}
	if (v["rc"] == 137 && "limit" in v && v["secs"] + 0 >= v["limit"] + 0)
		print $2 ":(timeout)", "fail"
	else if (v["rc"] != 0 && v["rc"] != 4 && !($2 in failed))
		print $2 ":(exit)", "fail"
	next
}
q == "why" && prog == wprog {
	if (wtest ~ /^\(/) {
		buf[n++] = $0
	} else if (tap_line()) {
		i = ($1 == "not") ? 4 : 3
		if ($1 == "not" && ($i == wtest || ($i == "#" && $(i + 2) == wtest))) {
			show(8)
			print "  guest: " $0
		}
		n = 0
	} else if (/^#/) {
		buf[n++] = $0
	}
	next
}

BEGIN {
	if (q == "why") {
		wprog = name
		sub(/:.*/, "", wprog)
		wtest = substr(name, length(wprog) + 2)
	}
}
END {
	if (q == "result" && rc != "")
		print rc
	if (q == "cpus" && cpus != "")
		print cpus
}
