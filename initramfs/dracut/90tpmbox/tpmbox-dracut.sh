#!/bin/sh
# Open the volumes listed in /etc/tpmbox-crypttab ("NAME SOURCE BLOB")
# with the tpmbox-unlock keyscript's output, as cryptsetup's keyscript=
# does on Debian: up to three tries, CRYPTTAB_TRIED counting them.
list=${TPMBOX_DRACUT_LIST:-/etc/tpmbox-crypttab}
[ -r "$list" ] || exit 0
while read -r name source blob; do
	[ -n "$name" ] || continue
	[ -e "/dev/mapper/$name" ] && continue
	case $source in
	UUID=*) dev=/dev/disk/by-uuid/${source#UUID=} ;;
	PARTUUID=*) dev=/dev/disk/by-partuuid/${source#PARTUUID=} ;;
	LABEL=*) dev=/dev/disk/by-label/${source#LABEL=} ;;
	*) dev=$source ;;
	esac
	[ -b "$dev" ] || [ -f "$dev" ] || continue
	export CRYPTTAB_NAME=$name CRYPTTAB_SOURCE=$dev CRYPTTAB_KEY=$blob
	tries=0
	while [ $tries -lt 3 ]; do
		export CRYPTTAB_TRIED=$tries
		if /lib/cryptsetup/scripts/tpmbox-unlock "$blob" |
		   cryptsetup open --key-file=- "$dev" "$name"; then
			break
		fi
		tries=$((tries + 1))
	done
done < "$list"
exit 0
