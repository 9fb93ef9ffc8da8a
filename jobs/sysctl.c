/*
 * sysctl.c: LKP's sysctl settings, as its programs/sysctl/setup names
 * them (sc_dirty_ratio is /proc/sys/vm/dirty_ratio), and the ones the
 * robot applies: the vm.* tunables that robot-box saves before a run
 * and restores after it (jobs/box/tunables.c).  Others (kernel.*, fs.*,
 * actions such as sc_drop_caches) split as in LKP and are refused where
 * a job is run, with the reason.
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/sysctl.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const struct {
	const char *name; /* LKP's */
	const char *path; /* under /proc/sys */
} settings[] = {
	{"sc_vsyscall32", "abi/vsyscall32"},
	{"sc_exception_trace", "debug/exception-trace"},
	{"sc_kprobes_optimization", "debug/kprobes-optimization"},
	{"sc_aio_max_nr", "fs/aio-max-nr"},
	{"sc_aio_nr", "fs/aio-nr"},
	{"sc_dentry_state", "fs/dentry-state"},
	{"sc_dir_notify_enable", "fs/dir-notify-enable"},
	{"sc_file_max", "fs/file-max"},
	{"sc_file_nr", "fs/file-nr"},
	{"sc_inode_nr", "fs/inode-nr"},
	{"sc_inode_state", "fs/inode-state"},
	{"sc_lease_break_time", "fs/lease-break-time"},
	{"sc_leases_enable", "fs/leases-enable"},
	{"sc_mount_max", "fs/mount-max"},
	{"sc_nr_open", "fs/nr_open"},
	{"sc_overflowgid", "fs/overflowgid"},
	{"sc_overflowuid", "fs/overflowuid"},
	{"sc_pipe_max_size", "fs/pipe-max-size"},
	{"sc_pipe_user_pages_hard", "fs/pipe-user-pages-hard"},
	{"sc_pipe_user_pages_soft", "fs/pipe-user-pages-soft"},
	{"sc_protected_hardlinks", "fs/protected_hardlinks"},
	{"sc_protected_symlinks", "fs/protected_symlinks"},
	{"sc_suid_dumpable", "fs/suid_dumpable"},
	{"sc_acct", "kernel/acct"},
	{"sc_acpi_video_flags", "kernel/acpi_video_flags"},
	{"sc_auto_msgmni", "kernel/auto_msgmni"},
	{"sc_bootloader_type", "kernel/bootloader_type"},
	{"sc_bootloader_version", "kernel/bootloader_version"},
	{"sc_cad_pid", "kernel/cad_pid"},
	{"sc_cap_last_cap", "kernel/cap_last_cap"},
	{"sc_core_pattern", "kernel/core_pattern"},
	{"sc_core_pipe_limit", "kernel/core_pipe_limit"},
	{"sc_core_uses_pid", "kernel/core_uses_pid"},
	{"sc_ctrl_alt_del", "kernel/ctrl-alt-del"},
	{"sc_dmesg_restrict", "kernel/dmesg_restrict"},
	{"sc_domainname", "kernel/domainname"},
	{"sc_ftrace_dump_on_oops", "kernel/ftrace_dump_on_oops"},
	{"sc_ftrace_enabled", "kernel/ftrace_enabled"},
	{"sc_hardlockup_all_cpu_backtrace",
	 "kernel/hardlockup_all_cpu_backtrace"},
	{"sc_hardlockup_panic", "kernel/hardlockup_panic"},
	{"sc_hostname", "kernel/hostname"},
	{"sc_hotplug", "kernel/hotplug"},
	{"sc_io_delay_type", "kernel/io_delay_type"},
	{"sc_kexec_load_disabled", "kernel/kexec_load_disabled"},
	{"sc_kptr_restrict", "kernel/kptr_restrict"},
	{"sc_kstack_depth_to_print", "kernel/kstack_depth_to_print"},
	{"sc_latencytop", "kernel/latencytop"},
	{"sc_max_lock_depth", "kernel/max_lock_depth"},
	{"sc_modprobe", "kernel/modprobe"},
	{"sc_modules_disabled", "kernel/modules_disabled"},
	{"sc_msgmax", "kernel/msgmax"},
	{"sc_msgmnb", "kernel/msgmnb"},
	{"sc_msgmni", "kernel/msgmni"},
	{"sc_ngroups_max", "kernel/ngroups_max"},
	{"sc_nmi_watchdog", "kernel/nmi_watchdog"},
	{"sc_numa_balancing", "kernel/numa_balancing"},
	{"sc_numa_balancing_scan_delay_ms",
	 "kernel/numa_balancing_scan_delay_ms"},
	{"sc_numa_balancing_scan_period_max_ms",
	 "kernel/numa_balancing_scan_period_max_ms"},
	{"sc_numa_balancing_scan_period_min_ms",
	 "kernel/numa_balancing_scan_period_min_ms"},
	{"sc_numa_balancing_scan_size_mb",
	 "kernel/numa_balancing_scan_size_mb"},
	{"sc_osrelease", "kernel/osrelease"},
	{"sc_ostype", "kernel/ostype"},
	{"sc_panic", "kernel/panic"},
	{"sc_panic_on_io_nmi", "kernel/panic_on_io_nmi"},
	{"sc_panic_on_oops", "kernel/panic_on_oops"},
	{"sc_panic_on_rcu_stall", "kernel/panic_on_rcu_stall"},
	{"sc_panic_on_stackoverflow", "kernel/panic_on_stackoverflow"},
	{"sc_panic_on_unrecovered_nmi", "kernel/panic_on_unrecovered_nmi"},
	{"sc_panic_on_warn", "kernel/panic_on_warn"},
	{"sc_perf_cpu_time_max_percent", "kernel/perf_cpu_time_max_percent"},
	{"sc_perf_event_max_contexts_per_stack",
	 "kernel/perf_event_max_contexts_per_stack"},
	{"sc_perf_event_max_sample_rate", "kernel/perf_event_max_sample_rate"},
	{"sc_perf_event_max_stack", "kernel/perf_event_max_stack"},
	{"sc_perf_event_mlock_kb", "kernel/perf_event_mlock_kb"},
	{"sc_perf_event_paranoid", "kernel/perf_event_paranoid"},
	{"sc_pid_max", "kernel/pid_max"},
	{"sc_poweroff_cmd", "kernel/poweroff_cmd"},
	{"sc_print_fatal_signals", "kernel/print-fatal-signals"},
	{"sc_printk", "kernel/printk"},
	{"sc_printk_delay", "kernel/printk_delay"},
	{"sc_printk_devkmsg", "kernel/printk_devkmsg"},
	{"sc_printk_ratelimit", "kernel/printk_ratelimit"},
	{"sc_printk_ratelimit_burst", "kernel/printk_ratelimit_burst"},
	{"sc_randomize_va_space", "kernel/randomize_va_space"},
	{"sc_real_root_dev", "kernel/real-root-dev"},
	{"sc_sched_autogroup_enabled", "kernel/sched_autogroup_enabled"},
	{"sc_sched_cfs_bandwidth_slice_us",
	 "kernel/sched_cfs_bandwidth_slice_us"},
	{"sc_sched_child_runs_first", "kernel/sched_child_runs_first"},
	{"sc_sched_latency_ns", "kernel/sched_latency_ns"},
	{"sc_sched_migration_cost_ns", "kernel/sched_migration_cost_ns"},
	{"sc_sched_min_granularity_ns", "kernel/sched_min_granularity_ns"},
	{"sc_sched_nr_migrate", "kernel/sched_nr_migrate"},
	{"sc_sched_rr_timeslice_ms", "kernel/sched_rr_timeslice_ms"},
	{"sc_sched_rt_period_us", "kernel/sched_rt_period_us"},
	{"sc_sched_rt_runtime_us", "kernel/sched_rt_runtime_us"},
	{"sc_sched_schedstats", "kernel/sched_schedstats"},
	{"sc_sched_shares_window_ns", "kernel/sched_shares_window_ns"},
	{"sc_sched_time_avg_ms", "kernel/sched_time_avg_ms"},
	{"sc_sched_tunable_scaling", "kernel/sched_tunable_scaling"},
	{"sc_sched_wakeup_granularity_ns",
	 "kernel/sched_wakeup_granularity_ns"},
	{"sc_sem", "kernel/sem"},
	{"sc_shm_rmid_forced", "kernel/shm_rmid_forced"},
	{"sc_shmall", "kernel/shmall"},
	{"sc_shmmax", "kernel/shmmax"},
	{"sc_shmmni", "kernel/shmmni"},
	{"sc_soft_watchdog", "kernel/soft_watchdog"},
	{"sc_softlockup_all_cpu_backtrace",
	 "kernel/softlockup_all_cpu_backtrace"},
	{"sc_softlockup_panic", "kernel/softlockup_panic"},
	{"sc_stack_tracer_enabled", "kernel/stack_tracer_enabled"},
	{"sc_sysctl_writes_strict", "kernel/sysctl_writes_strict"},
	{"sc_sysrq", "kernel/sysrq"},
	{"sc_tainted", "kernel/tainted"},
	{"sc_threads_max", "kernel/threads-max"},
	{"sc_timer_migration", "kernel/timer_migration"},
	{"sc_traceoff_on_warning", "kernel/traceoff_on_warning"},
	{"sc_tracepoint_printk", "kernel/tracepoint_printk"},
	{"sc_unknown_nmi_panic", "kernel/unknown_nmi_panic"},
	{"sc_version", "kernel/version"},
	{"sc_watchdog", "kernel/watchdog"},
	{"sc_watchdog_cpumask", "kernel/watchdog_cpumask"},
	{"sc_watchdog_thresh", "kernel/watchdog_thresh"},
	{"sc_max_resvport", "sunrpc/max_resvport"},
	{"sc_min_resvport", "sunrpc/min_resvport"},
	{"sc_nfs_debug", "sunrpc/nfs_debug"},
	{"sc_nfsd_debug", "sunrpc/nfsd_debug"},
	{"sc_nlm_debug", "sunrpc/nlm_debug"},
	{"sc_rpc_debug", "sunrpc/rpc_debug"},
	{"sc_tcp_fin_timeout", "sunrpc/tcp_fin_timeout"},
	{"sc_tcp_max_slot_table_entries", "sunrpc/tcp_max_slot_table_entries"},
	{"sc_tcp_slot_table_entries", "sunrpc/tcp_slot_table_entries"},
	{"sc_transports", "sunrpc/transports"},
	{"sc_udp_slot_table_entries", "sunrpc/udp_slot_table_entries"},
	{"sc_max_cgroup_namespaces", "user/max_cgroup_namespaces"},
	{"sc_max_ipc_namespaces", "user/max_ipc_namespaces"},
	{"sc_max_mnt_namespaces", "user/max_mnt_namespaces"},
	{"sc_max_net_namespaces", "user/max_net_namespaces"},
	{"sc_max_pid_namespaces", "user/max_pid_namespaces"},
	{"sc_max_user_namespaces", "user/max_user_namespaces"},
	{"sc_max_uts_namespaces", "user/max_uts_namespaces"},
	{"sc_admin_reserve_kbytes", "vm/admin_reserve_kbytes"},
	{"sc_block_dump", "vm/block_dump"},
	{"sc_compact_memory", "vm/compact_memory"},
	{"sc_compact_unevictable_allowed", "vm/compact_unevictable_allowed"},
	{"sc_dirty_background_bytes", "vm/dirty_background_bytes"},
	{"sc_dirty_background_ratio", "vm/dirty_background_ratio"},
	{"sc_dirty_bytes", "vm/dirty_bytes"},
	{"sc_dirty_expire_centisecs", "vm/dirty_expire_centisecs"},
	{"sc_dirty_ratio", "vm/dirty_ratio"},
	{"sc_dirty_writeback_centisecs", "vm/dirty_writeback_centisecs"},
	{"sc_dirtytime_expire_seconds", "vm/dirtytime_expire_seconds"},
	{"sc_drop_caches", "vm/drop_caches"},
	{"sc_extfrag_threshold", "vm/extfrag_threshold"},
	{"sc_hugepages_treat_as_movable", "vm/hugepages_treat_as_movable"},
	{"sc_hugetlb_shm_group", "vm/hugetlb_shm_group"},
	{"sc_laptop_mode", "vm/laptop_mode"},
	{"sc_legacy_va_layout", "vm/legacy_va_layout"},
	{"sc_lowmem_reserve_ratio", "vm/lowmem_reserve_ratio"},
	{"sc_max_map_count", "vm/max_map_count"},
	{"sc_memory_failure_early_kill", "vm/memory_failure_early_kill"},
	{"sc_memory_failure_recovery", "vm/memory_failure_recovery"},
	{"sc_min_free_kbytes", "vm/min_free_kbytes"},
	{"sc_min_slab_ratio", "vm/min_slab_ratio"},
	{"sc_min_unmapped_ratio", "vm/min_unmapped_ratio"},
	{"sc_mmap_min_addr", "vm/mmap_min_addr"},
	{"sc_mmap_rnd_bits", "vm/mmap_rnd_bits"},
	{"sc_mmap_rnd_compat_bits", "vm/mmap_rnd_compat_bits"},
	{"sc_nr_hugepages", "vm/nr_hugepages"},
	{"sc_nr_hugepages_mempolicy", "vm/nr_hugepages_mempolicy"},
	{"sc_nr_overcommit_hugepages", "vm/nr_overcommit_hugepages"},
	{"sc_nr_pdflush_threads", "vm/nr_pdflush_threads"},
	{"sc_numa_zonelist_order", "vm/numa_zonelist_order"},
	{"sc_oom_dump_tasks", "vm/oom_dump_tasks"},
	{"sc_oom_kill_allocating_task", "vm/oom_kill_allocating_task"},
	{"sc_overcommit_kbytes", "vm/overcommit_kbytes"},
	{"sc_overcommit_memory", "vm/overcommit_memory"},
	{"sc_overcommit_ratio", "vm/overcommit_ratio"},
	{"sc_page_cluster", "vm/page-cluster"},
	{"sc_panic_on_oom", "vm/panic_on_oom"},
	{"sc_percpu_pagelist_fraction", "vm/percpu_pagelist_fraction"},
	{"sc_percpu_pagelist_high_fraction",
	 "vm/percpu_pagelist_high_fraction"},
	{"sc_stat_interval", "vm/stat_interval"},
	{"sc_stat_refresh", "vm/stat_refresh"},
	{"sc_swappiness", "vm/swappiness"},
	{"sc_user_reserve_kbytes", "vm/user_reserve_kbytes"},
	{"sc_vfs_cache_pressure", "vm/vfs_cache_pressure"},
	{"sc_watermark_scale_factor", "vm/watermark_scale_factor"},
	{"sc_zone_reclaim_mode", "vm/zone_reclaim_mode"},
	{"sc_somaxconn", "net/core/somaxconn"},
	{"sc_promotion_ratelimit_mbytes_per_sec",
	 "vm/promotion_ratelimit_mbytes_per_sec"},
	{"sc_demotion_ratelimit_mbytes_per_sec",
	 "vm/demotion_ratelimit_mbytes_per_sec"},
	{"sc_hot_threshold_mbytes", "vm/hot_threshold_mbytes"},
	{"sc_cold_threshold_mbytes", "vm/cold_threshold_mbytes"},
	{"sc_drop_threshold_mbytes", "vm/drop_threshold_mbytes"},
	{NULL, NULL},
};

/* The vm.* tunables robot-box saves, applies and restores: settings,
 * never actions. */
static const char *const tunables[] = {
	"vm/admin_reserve_kbytes",
	"vm/compact_unevictable_allowed",
	"vm/dirty_background_bytes",
	"vm/dirty_background_ratio",
	"vm/dirty_bytes",
	"vm/dirty_expire_centisecs",
	"vm/dirty_ratio",
	"vm/dirty_writeback_centisecs",
	"vm/dirtytime_expire_seconds",
	"vm/extfrag_threshold",
	"vm/laptop_mode",
	"vm/max_map_count",
	"vm/min_free_kbytes",
	"vm/min_slab_ratio",
	"vm/min_unmapped_ratio",
	"vm/nr_hugepages",
	"vm/overcommit_kbytes",
	"vm/overcommit_memory",
	"vm/overcommit_ratio",
	"vm/page-cluster",
	"vm/percpu_pagelist_high_fraction",
	"vm/stat_interval",
	"vm/swappiness",
	"vm/user_reserve_kbytes",
	"vm/vfs_cache_pressure",
	"vm/watermark_scale_factor",
	"vm/zone_reclaim_mode",
	NULL,
};

const char *
sysctl_path(const char *name)
{
	for (size_t i = 0; settings[i].name != NULL; i++)
		if (strcmp(settings[i].name, name) == 0)
			return settings[i].path;
	return NULL;
}

const char *
sysctl_name(size_t i)
{
	for (size_t k = 0; settings[k].name != NULL; k++)
		if (k == i)
			return settings[k].name;
	return NULL;
}

bool
sysctl_applies(const char *name)
{
	const char *path = sysctl_path(name);

	for (size_t i = 0; path != NULL && tunables[i] != NULL; i++)
		if (strcmp(tunables[i], path) == 0)
			return true;
	return false;
}

const char *
sysctl_tunable(size_t i)
{
	for (size_t k = 0; tunables[k] != NULL; k++)
		if (k == i)
			return tunables[k];
	return NULL;
}

const char *
sysctl_name_of_path(const char *path)
{
	for (size_t i = 0; settings[i].name != NULL; i++)
		if (strcmp(settings[i].path, path) == 0)
			return settings[i].name;
	return NULL;
}

const char *
sysctl_suggest(const char *word)
{
	const char *names[sizeof settings / sizeof settings[0]];
	size_t n = 0;

	for (size_t i = 0; settings[i].name != NULL; i++)
		names[n++] = settings[i].name;
	names[n] = NULL;
	return str_closest(word, names);
}

const char *
sysctl_of_dotted(const char *key)
{
	char *path = xstrdup(key);
	const char *name;

	for (char *p = path; *p != '\0'; p++)
		if (*p == '.')
			*p = '/';
	name = sysctl_name_of_path(path);
	free(path);
	return name;
}

const char *const *
sysctl_followers(const char *path)
{
	/* The kernel's dirty limits: thresholds of the dirty page count,
	 * from the ratio or the bytes of each (mm/page-writeback.c). */
	static const char *const dirty[] = {
		"proc-vmstat.nr_dirty_threshold",
		"proc-vmstat.nr_dirty_background_threshold", NULL};
	static const char *const background[] = {
		"proc-vmstat.nr_dirty_background_threshold", NULL};
	static const char *const none[] = {NULL};

	if (path == NULL)
		return none;
	if (strcmp(path, "vm/dirty_ratio") == 0 ||
	    strcmp(path, "vm/dirty_bytes") == 0)
		return dirty;
	if (strcmp(path, "vm/dirty_background_ratio") == 0 ||
	    strcmp(path, "vm/dirty_background_bytes") == 0)
		return background;
	return none;
}
