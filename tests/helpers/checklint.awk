# checklint.awk FILE...: the lines of bats tests that cannot fail.  Bats
# runs a test under set -e, which ignores a command negated with '!' and
# every command of an '&&' list but the last: a '! cmd' line, or a line
# '[ a ] && [ b ]', fails the test only when the test (or function) ends
# with it.  Lines that continue a condition (if, while, a line ending in
# && || | or \) are not checks of their own; a '! cmd |' pipeline that
# goes on over lines is judged by its last line.  Prints FILE:LINE: TEXT.

# a line that goes on as a pipeline ('|' or '\', not '||'), and one
# that ends in a guard ('|| false', or '||' going on)
function continues_pipe(l) { return l ~ /(\||\\)[ \t]*$/ && l !~ /\|\|[ \t]*$/ }
function guarded(l) { return l ~ /\|\|( *false)?[ \t]*$/ }
function flush_pending(next_line) {
	if (pending != "" && next_line !~ /^[ \t]*}/)
		print pending
	pending = ""
}
FNR == 1 { flush_pending(""); prev = ""; negopen = "" }
{
	flush_pending($0)
	cont = prev ~ /(&&|\|\||\||\\)[ \t]*$/ ||
	       prev ~ /^[ \t]*(if|elif|while|until)[ \t]/
	line = $0
	# the last line of a negated pipeline begun on an earlier line
	if (negopen != "") {
		if (!continues_pipe(line)) {
			if (!guarded(line))
				pending = negopen
			negopen = ""
		}
		prev = line
		next
	}
	if (!cont && line ~ /^[ \t]+! / && continues_pipe(line)) {
		negopen = FILENAME ":" FNR ": " line
		prev = line
		next
	}
	if (!cont && line ~ /^[ \t]+! / && line !~ /\|\| *false[ \t]*$/ &&
	    line !~ /(then|\\|\||&&)[ \t]*$/)
		pending = FILENAME ":" FNR ": " line
	else if (!cont && line ~ /^[ \t]+\[ .* \] && \[ .* \][ \t]*$/ &&
		 line !~ /\|\|/)
		pending = FILENAME ":" FNR ": " line
	prev = line
}
END { flush_pending("") }
