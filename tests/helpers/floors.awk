# The floors of lib/ and include/, bottom to top (DESIGN.md "Layout"):
# a file may include headers of its own floor and of the floors below.
# Prints every #include "..." that climbs, or names no floor, as
# FILE:LINE: the include and why; prints nothing when all is well.
# Usage: awk -f floors.awk lib/*/*.c include/*/*.h
BEGIN {
	n = split("base crypto tpm tpm2 tpm12 fmt log job", fl, " ")
	for (i = 1; i <= n; i++)
		rank[fl[i]] = i
}
FNR == 1 {
	k = split(FILENAME, parts, "/")
	me = k >= 2 ? parts[k - 1] : ""
	if (!(me in rank))
		printf "%s: not in a floor folder (%s)\n", FILENAME, fl[1] "..." fl[n]
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*$/, "", inc)
	if (!(me in rank))
		next
	if (index(inc, "/") == 0) {
		printf "%s:%d: #include \"%s\": names no floor\n", FILENAME, FNR, inc
		next
	}
	f = inc
	sub(/\/.*$/, "", f)
	if (!(f in rank))
		printf "%s:%d: #include \"%s\": %s is not a floor\n", FILENAME, FNR, inc, f
	else if (rank[f] > rank[me])
		printf "%s:%d: #include \"%s\": %s is above %s\n", FILENAME, FNR, inc, f, me
}
