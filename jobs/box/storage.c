/*
 * storage.c: loop devices, mkfs, mount, and undoing them.
 *
 * Loop devices are set up with ioctl()s (LOOP_CTL_GET_FREE and
 * LOOP_CONFIGURE, with direct I/O so that an image in /dev/shm behaves
 * like a RAM disk rather than a doubly cached file, and with autoclear so
 * that a device whose mount goes away detaches itself).  mkfs and mount
 * are the system's own commands, run as children with their output in
 * the run's log.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "jobs/box/child.h"
#include "jobs/box/storage.h"
#include "jobs/needs.h"
#include "jobs/unit.h"
#include "robot/core/buf.h"
#include "robot/core/log.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

char *
storage_ram_dir(const struct boxconf *bc)
{
	return xasprintf("/dev/shm/robot-box-%s", bc->name);
}

static char *
file_dir(const struct boxconf *bc)
{
	return xasprintf("%s/images", bc->workdir);
}

/* mkdir -p for a directory and its parents. */
static bool
make_dirs(const char *path)
{
	char *p = xstrdup(path);
	bool ok = true;

	for (char *q = p + 1; *q != '\0'; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		if (mkdir(p, 0755) == -1 && errno != EEXIST)
			ok = false;
		*q = '/';
	}
	if (mkdir(p, 0755) == -1 && errno != EEXIST)
		ok = false;
	free(p);
	return ok;
}

/* A value of the job: job[program][option], else job[option]. */
static const struct node *
job_option(const struct node *job, const char *program, const char *option)
{
	const struct node *v = node_get(node_get(job, program), option);

	return v ? v : node_get(job, option);
}

static bool
run_logged(const char *log_path, char *const argv[], char **err)
{
	struct child c;
	bool timed_out, ok;
	FILE *fp = fopen(log_path, "a");

	if (fp != NULL) {
		fprintf(fp, "#");
		for (size_t i = 0; argv[i] != NULL; i++)
			fprintf(fp, " %s", argv[i]);
		fprintf(fp, "\n");
		fclose(fp);
	}
	if (!child_spawn(&c, argv[0], argv, log_path, log_path, NULL)) {
		*err = xasprintf("cannot start %s: %s", argv[0],
				 strerror(errno));
		return false;
	}
	ok = child_wait(&c, 600, &timed_out) && child_succeeded(&c);
	if (!ok) {
		char *how = child_exit_text(&c), *words = child_last_words(&c);

		if (timed_out)
			*err = xasprintf("%s %s took over 10 minutes", argv[0],
					 argv[1]);
		else if (child_stop_signal() != 0)
			*err = xasprintf("%s was stopped", argv[0]);
		else if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 127)
			*err = xasprintf("%s is not installed", argv[0]);
		else
			*err = xasprintf("%s %s%s%s", argv[0], how,
					 words ? ": " : "", words ? words : "");
		free(how);
		free(words);
	}
	child_release(&c);
	return ok;
}

static bool
loop_attach(struct storage_dev *d, char **err)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);

	if (ctl == -1) {
		*err = xasprintf("cannot open /dev/loop-control: %s",
				 strerror(errno));
		return false;
	}
	for (int tries = 0; tries < 20; tries++) {
		struct loop_config cfg;
		int n = ioctl(ctl, LOOP_CTL_GET_FREE), lfd, bfd, rc, e;
		char dev[64], sys[128];

		if (n < 0) {
			*err = xasprintf("no free loop device: %s",
					 strerror(errno));
			break;
		}
		snprintf(dev, sizeof dev, "/dev/loop%d", n);
		if ((lfd = open(dev, O_RDWR | O_CLOEXEC)) == -1)
			continue; /* the node may still be appearing */
		if ((bfd = open(d->image, O_RDWR | O_CLOEXEC)) == -1) {
			*err = xasprintf("cannot open '%s': %s", d->image,
					 strerror(errno));
			close(lfd);
			break;
		}
		memset(&cfg, 0, sizeof cfg);
		cfg.fd = (unsigned)bfd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
		snprintf((char *)cfg.info.lo_file_name,
			 sizeof cfg.info.lo_file_name, "%s", d->image);
		rc = ioctl(lfd, LOOP_CONFIGURE, &cfg);
		if (rc == -1 && errno == EINVAL) {
			/* No direct I/O on this backing file. */
			cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
			rc = ioctl(lfd, LOOP_CONFIGURE, &cfg);
		}
		if (rc == 0)
			goto attached;
		e = errno;
		close(bfd);
		close(lfd);
		if (e == EBUSY)
			continue; /* someone took it first */
		*err = xasprintf("cannot attach '%s' to %s: %s", d->image, dev,
				 strerror(e));
		break;
	attached:
		close(bfd);
		d->dev = xstrdup(dev);
		d->name = xstrdup(dev + 5);
		d->loop_fd = lfd;
		snprintf(sys, sizeof sys, "/sys/block/%s/loop/dio", d->name);
		{
			char c = '0';
			int fd = open(sys, O_RDONLY | O_CLOEXEC);

			if (fd != -1) {
				if (read(fd, &c, 1) != 1)
					c = '0';
				close(fd);
			}
			d->dio = c == '1';
		}
		close(ctl);
		return true;
	}
	close(ctl);
	if (*err == NULL)
		*err = xstrdup("cannot attach a loop device");
	return false;
}

static bool
make_images(struct storage *s, const char *dir, size_t n, uint64_t size,
	    char **err)
{
	if (!make_dirs(dir)) {
		*err = xasprintf("cannot create '%s': %s", dir,
				 strerror(errno));
		return false;
	}
	s->image_dir = xstrdup(dir);
	s->devs = xcalloc(n, sizeof *s->devs);
	for (size_t i = 0; i < n; i++) {
		struct storage_dev *d = &s->devs[s->n++];
		int fd;

		d->loop_fd = -1;
		d->image = xasprintf("%s/disk%zu.img", dir, i);
		unlink(d->image);
		fd = open(d->image, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			  0600);
		if (fd == -1 || ftruncate(fd, (off_t)size) == -1) {
			*err = xasprintf("cannot create the image '%s': %s",
					 d->image, strerror(errno));
			if (fd != -1)
				close(fd);
			return false;
		}
		close(fd);
		if (!loop_attach(d, err))
			return false;
	}
	return true;
}

/* Free bytes of the filesystem holding dir (made if missing). */
static uint64_t
free_space(const char *dir)
{
	struct statvfs sv;

	make_dirs(dir);
	if (statvfs(dir, &sv) != 0)
		return 0;
	return (uint64_t)sv.f_bavail * sv.f_frsize;
}

static bool
set_disks(struct storage *s, const struct boxconf *bc, const char *spec,
	  char **err)
{
	char fmt[32];
	char *ram = storage_ram_dir(bc), *files = file_dir(bc);
	struct needs_disk nd;
	unsigned long n;
	const char *kind = nd.kind;
	uint64_t size;
	bool ok = false;

	if (!needs_parse_disk(spec, &nd)) {
		*err = xasprintf("'%s' is not a disk this box knows", spec);
		goto out;
	}
	n = nd.n;
	size = nd.size;
	if (strcmp(kind, "HDD") == 0 || strcmp(kind, "SSD") == 0) {
		char **parts = kind[0] == 'H' ? bc->hdd : bc->ssd;
		size_t have = kind[0] == 'H' ? bc->nhdd : bc->nssd;

		if (have < n) {
			*err = xasprintf(
				"the job needs %lu %s partition%s; this "
				"box has %zu (%s_partitions in its "
				"configuration)",
				n, kind, n == 1 ? "" : "s", have,
				kind[0] == 'H' ? "hdd" : "ssd");
			goto out;
		}
		s->backend = xasprintf("%s partitions", kind);
		s->devs = xcalloc(n, sizeof *s->devs);
		for (size_t i = 0; i < n; i++) {
			struct storage_dev *d = &s->devs[s->n++];

			d->loop_fd = -1;
			d->dev = xstrdup(parts[i]);
			d->name = xstrdup(strrchr(parts[i], '/') + 1);
		}
		ok = true;
		goto out;
	}
	unit_format_size(size, fmt, sizeof fmt);
	s->size = size;
	if (strcmp(kind, "BRD") == 0 || strcmp(kind, "LOOP") == 0) {
		if (n * size > bc->ram_limit) {
			char lim[32];

			unit_format_size(bc->ram_limit, lim, sizeof lim);
			*err = xasprintf("the job needs %lu x %s of RAM disks; "
					 "this box allows %s (ram_disk_limit)",
					 n, fmt, lim);
			goto out;
		}
		if (n * size > free_space("/dev/shm")) {
			*err = xasprintf("the job needs %lu x %s in /dev/shm, "
					 "which has less free",
					 n, fmt);
			goto out;
		}
		/* brd needs module loading, which this kernel lacks where
		 * the robot runs; loop on tmpfs is the stand-in. */
		s->backend = xasprintf(
			"%lu loop device%s on %s images in /dev/shm (tmpfs)%s",
			n, n == 1 ? "" : "s", fmt,
			strcmp(kind, "BRD") == 0 ? ", standing in for brd"
						 : "");
		ok = make_images(s, ram, n, size, err);
	} else if (strcmp(kind, "FILE") == 0) {
		if (n * size > free_space(bc->workdir)) {
			*err = xasprintf("the job needs %lu x %s in %s, which "
					 "has less free",
					 n, fmt, bc->workdir);
			goto out;
		}
		s->backend = xasprintf("%lu loop device%s on %s images in %s",
				       n, n == 1 ? "" : "s", fmt, files);
		ok = make_images(s, files, n, size, err);
	} else {
		*err = xasprintf("'%s' is not a disk this box knows", spec);
	}
out:
	free(ram);
	free(files);
	return ok;
}

static bool
make_fs(struct storage *s, const struct node *job, char **err)
{
	const struct node *mkfs_opt = job_option(job, "fs", "mkfs");
	const struct node *mount_opt = job_option(job, "fs", "mount_option");
	char *extra_mkfs = mkfs_opt ? node_to_s(mkfs_opt) : NULL;
	char *extra_mount = mount_opt ? node_to_s(mount_opt) : NULL;
	bool ok = true;

	for (size_t i = 0; i < s->n && ok; i++) {
		struct storage_dev *d = &s->devs[i];
		char *argv[32], *tool = xasprintf("mkfs.%s", s->fs), *opts;
		char *words = extra_mkfs ? xstrdup(extra_mkfs) : NULL, *save;
		size_t a = 0;

		argv[a++] = tool;
		/* LKP's options: xfs -f -mreflink=0, ext4 -q -F. */
		if (strcmp(s->fs, "xfs") == 0) {
			argv[a++] = "-q";
			argv[a++] = "-f";
			argv[a++] = "-mreflink=0";
		} else if (strcmp(s->fs, "ext4") == 0) {
			argv[a++] = "-q";
			argv[a++] = "-F";
		} else {
			argv[a++] = "-q";
			argv[a++] = "-f";
		}
		for (char *w = words ? strtok_r(words, " ", &save) : NULL;
		     w != NULL && a < 28; w = strtok_r(NULL, " ", &save))
			argv[a++] = w;
		argv[a++] = d->dev;
		argv[a] = NULL;
		ok = run_logged(s->log_path, argv, err);
		free(tool);
		free(words);
		if (!ok) {
			char *e = *err;

			*err = xasprintf("cannot make %s on %s: %s", s->fs,
					 d->dev, e);
			free(e);
			break;
		}
		/* LKP's /fs/<device>: fs_mark wants directory names of less
		 * than 40 bytes. */
		d->mnt = xasprintf("/fs/%s", d->name);
		if (!make_dirs(d->mnt)) {
			*err = xasprintf("cannot create '%s': %s", d->mnt,
					 strerror(errno));
			ok = false;
			break;
		}
		/* LKP mounts xfs with inode64. */
		if (strcmp(s->fs, "xfs") == 0)
			opts = xasprintf("inode64%s%s", extra_mount ? "," : "",
					 extra_mount ? extra_mount : "");
		else
			opts = extra_mount ? xstrdup(extra_mount) : NULL;
		{
			char *margv[] = {"mount",
					 "-t",
					 s->fs,
					 "-o",
					 opts ? opts : "defaults",
					 d->dev,
					 d->mnt,
					 NULL};

			ok = run_logged(s->log_path, margv, err);
		}
		free(opts);
		if (!ok) {
			char *e = *err;

			*err = xasprintf("cannot mount %s on '%s': %s", d->dev,
					 d->mnt, e);
			free(e);
			break;
		}
		d->mounted = true;
	}
	free(extra_mkfs);
	free(extra_mount);
	return ok;
}

/* The refusals of DESIGN.md: what a job asks that this box cannot do. */
static bool
check_supported(const struct node *job, char **err)
{
	char *fs2 = needs_value(job, "fs2"), *md = needs_value(job, "md");
	char *gov = needs_value(job, "cpufreq_governor");
	bool ok = true;

	if (fs2 != NULL) {
		*err = xasprintf("this box cannot export %s (fs2): NFS and "
				 "CIFS are not supported",
				 fs2);
		ok = false;
	} else if (md != NULL && strcasecmp(md, "JBOD") != 0) {
		*err = xasprintf("this box cannot assemble md %s: md RAID is "
				 "not supported",
				 md);
		ok = false;
	} else if (gov != NULL &&
		   access("/sys/devices/system/cpu/cpu0/cpufreq", F_OK) != 0) {
		*err = xasprintf("this box cannot set the %s cpufreq governor: "
				 "it has no cpufreq (a virtual machine?)",
				 gov);
		ok = false;
	}
	free(fs2);
	free(md);
	free(gov);
	return ok;
}

static bool
set_iosched(struct storage *s, const struct node *job, char **err)
{
	char *sched = needs_value(job, "iosched");
	bool ok = true;

	for (size_t i = 0; sched != NULL && i < s->n && ok; i++) {
		char path[256], have[256] = "";
		ssize_t n;
		int fd;

		snprintf(path, sizeof path, "/sys/block/%s/queue/scheduler",
			 s->devs[i].name);
		if ((fd = open(path, O_RDWR | O_CLOEXEC)) == -1 ||
		    (n = read(fd, have, sizeof have - 1)) < 0) {
			*err = xasprintf("cannot set the %s I/O scheduler on "
					 "%s: %s",
					 sched, s->devs[i].name,
					 strerror(errno));
			ok = false;
		} else {
			have[n] = '\0';
			if (write(fd, sched, strlen(sched)) == -1) {
				char *nl = strchr(have, '\n');

				if (nl)
					*nl = '\0';
				*err = xasprintf("%s has no %s I/O scheduler "
						 "(it has: %s)",
						 s->devs[i].name, sched, have);
				ok = false;
			}
		}
		if (fd != -1)
			close(fd);
	}
	free(sched);
	return ok;
}

bool
storage_setup(struct storage *s, const struct boxconf *bc,
	      const struct node *job, const char *log_path, char **err)
{
	char *disk = needs_value(job, "disk");
	bool ok;

	memset(s, 0, sizeof *s);
	s->log_path = xstrdup(log_path);
	s->fs = needs_value(job, "fs");
	*err = NULL;
	if (!check_supported(job, err)) {
		free(disk);
		return false;
	}
	if (disk == NULL) {
		if (s->fs == NULL) {
			return true; /* a job without disks */
		}
		*err = xstrdup("the job names a filesystem but no disk (e.g. "
			       "disk: 1LOOP_1G)");
		return false;
	}
	if (s->fs != NULL && strcmp(s->fs, "xfs") != 0 &&
	    strcmp(s->fs, "ext4") != 0 && strcmp(s->fs, "btrfs") != 0) {
		*err = xasprintf("this box cannot make %s filesystems (xfs, "
				 "ext4 and btrfs)",
				 s->fs);
		free(disk);
		return false;
	}
	ok = set_disks(s, bc, disk, err) && set_iosched(s, job, err);
	free(disk);
	if (ok && s->fs != NULL)
		ok = make_fs(s, job, err);
	return ok;
}

static bool
unmount(const char *mnt)
{
	for (int i = 0; i < 50; i++) {
		if (umount2(mnt, 0) == 0 || errno == EINVAL || errno == ENOENT)
			return true;
		if (errno != EBUSY)
			break;
		usleep(100000);
	}
	log_warn("cannot unmount '%s'; detaching it lazily", mnt);
	return umount2(mnt, MNT_DETACH) == 0;
}

void
storage_teardown(struct storage *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct storage_dev *d = &s->devs[i];

		/* Unmounted even when its mount(8) did not say it mounted:
		 * one killed by a stop may have mounted before it died. */
		if (d->mnt != NULL) {
			unmount(d->mnt);
			rmdir(d->mnt);
		}
		if (d->loop_fd != -1) {
			ioctl(d->loop_fd, LOOP_CLR_FD, 0);
			close(d->loop_fd);
			d->loop_fd = -1;
		}
		if (d->image != NULL)
			unlink(d->image);
		free(d->dev);
		free(d->name);
		free(d->image);
		free(d->mnt);
	}
	if (s->image_dir != NULL)
		rmdir(s->image_dir);
	free(s->devs);
	free(s->backend);
	free(s->fs);
	free(s->image_dir);
	free(s->log_path);
	memset(s, 0, sizeof *s);
}

json_t *
storage_json(const struct storage *s)
{
	json_t *devs = json_array();

	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(devs,
				      json_pack("{s:s, s:s?, s:s?, s:b}",
						"device", s->devs[i].dev,
						"image", s->devs[i].image,
						"mount", s->devs[i].mnt,
						"direct_io", s->devs[i].dio));
	return json_pack("{s:s?, s:s?, s:I, s:o}", "backend", s->backend, "fs",
			 s->fs, "size", (json_int_t)s->size, "devices", devs);
}

const char **
storage_mounts(const struct storage *s)
{
	static const char *mnts[65];
	size_t k = 0;

	for (size_t i = 0; i < s->n && k < 64; i++)
		if (s->devs[i].mounted)
			mnts[k++] = s->devs[i].mnt;
	mnts[k] = NULL;
	return mnts;
}

/* ---- cleanup after a killed run --------------------------------------- */

/* The loop devices backed by images in one of dirs ("/dev/loop3"). */
static size_t
our_loops(const char *const *dirs, char ***out)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir("/sys/block");

	*out = NULL;
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char path[512], backing[4096];
		ssize_t len;
		int fd;

		if (!str_has_prefix(de->d_name, "loop"))
			continue;
		snprintf(path, sizeof path, "/sys/block/%s/loop/backing_file",
			 de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		len = read(fd, backing, sizeof backing - 1);
		close(fd);
		if (len <= 0)
			continue;
		backing[len] = '\0';
		if (backing[len - 1] == '\n')
			backing[len - 1] = '\0';
		for (size_t i = 0; dirs[i] != NULL; i++) {
			if (str_has_prefix(backing, dirs[i])) {
				*out = xreallocarray(*out, n + 1, sizeof **out);
				(*out)[n++] = xasprintf("/dev/%s", de->d_name);
				break;
			}
		}
	}
	closedir(d);
	return n;
}

static bool
in_list(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* Unmounts every mount of one of the devices; returns how many. */
static int
cleanup_mounts(char **devs, size_t ndevs)
{
	char line[8192], **mnts = NULL;
	size_t n = 0;
	int count = 0;
	FILE *fp = fopen("/proc/self/mountinfo", "r");

	if (fp == NULL)
		return 0;
	while (fgets(line, sizeof line, fp) != NULL) {
		char mnt[4096], src[4096], *sep = strstr(line, " - ");

		if (sep == NULL ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%*s %4095s", src) != 1)
			continue;
		if (in_list(devs, ndevs, src)) {
			mnts = xreallocarray(mnts, n + 1, sizeof *mnts);
			mnts[n++] = xstrdup(mnt);
		}
	}
	fclose(fp);
	for (size_t i = n; i-- > 0;) {
		if (unmount(mnts[i])) {
			log_info("cleanup: unmounted '%s'", mnts[i]);
			count++;
		}
		if (str_has_prefix(mnts[i], "/fs/"))
			rmdir(mnts[i]);
		free(mnts[i]);
	}
	free(mnts);
	return count;
}

static int
cleanup_loops(char **devs, size_t n)
{
	int count = 0;

	for (size_t i = 0; i < n; i++) {
		int fd = open(devs[i], O_RDWR | O_CLOEXEC);

		if (fd == -1)
			continue;
		if (ioctl(fd, LOOP_CLR_FD, 0) == 0) {
			log_info("cleanup: detached %s", devs[i]);
			count++;
		}
		close(fd);
	}
	return count;
}

static int
cleanup_images(const char *dir)
{
	struct dirent *de;
	int count = 0;
	DIR *d = opendir(dir);

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char *p;

		if (!str_has_suffix(de->d_name, ".img"))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (unlink(p) == 0) {
			log_info("cleanup: removed '%s'", p);
			count++;
		}
		free(p);
	}
	closedir(d);
	rmdir(dir);
	return count;
}

int
storage_cleanup(const struct boxconf *bc)
{
	char *ram = storage_ram_dir(bc), *files = file_dir(bc);
	char *ram_slash = xasprintf("%s/", ram);
	char *files_slash = xasprintf("%s/", files);
	const char *dirs[] = {ram_slash, files_slash, NULL};
	char **devs;
	size_t n = our_loops(dirs, &devs);
	int count = 0;

	/* The box's partitions are its own too. */
	for (size_t i = 0; i < bc->nhdd + bc->nssd; i++) {
		devs = xreallocarray(devs, n + 1, sizeof *devs);
		devs[n++] = xstrdup(i < bc->nhdd ? bc->hdd[i]
						 : bc->ssd[i - bc->nhdd]);
	}
	count += cleanup_mounts(devs, n);
	/* Autoclear detaches most loops on unmount; detach the rest. */
	count += cleanup_loops(devs, n);
	count += cleanup_images(ram);
	count += cleanup_images(files);
	for (size_t i = 0; i < n; i++)
		free(devs[i]);
	free(devs);
	free(ram);
	free(files);
	free(ram_slash);
	free(files_slash);
	return count;
}
