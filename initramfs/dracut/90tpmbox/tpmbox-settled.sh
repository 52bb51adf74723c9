#!/bin/sh
# dracut initqueue/settled hook: open each volume of /etc/tpmbox-crypttab
# whose device is there and not yet open.  Runs again on every pass of the
# queue, so it only acts on what is left.
[ -x /sbin/tpmbox-dracut ] && /sbin/tpmbox-dracut
