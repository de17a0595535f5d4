#!/usr/bin/env python3
"""deploy/k8s/: the DaemonSet and the training pod's snippet agree with each other and with
protond's arguments, and ask for no more privilege than docs/cluster.md justifies.

Parsed with PyYAML (Debian's python3-yaml); nothing is sent to a cluster. Exits 77 (CTest:
skipped) with a message where PyYAML is missing.
"""

import os
import posixpath
import sys
import unittest

SKIPPED = 77
K8S = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "k8s")
SHIM = "libprotond_shim.so"
# What protond needs of root (deploy/systemd/protond.service explains why).
ALLOWED_CAPABILITIES = {"SYS_PTRACE", "DAC_READ_SEARCH"}


def load(name):
    import yaml  # checked in main()
    with open(os.path.join(K8S, name)) as f:
        return [doc for doc in yaml.safe_load_all(f) if doc]


def one_of_kind(docs, kind):
    found = [doc for doc in docs if doc["kind"] == kind]
    assert len(found) == 1, f"{len(found)} {kind}s"
    return found[0]


def flag(args, name):
    return args[args.index(name) + 1]


def host_path(pod_spec, container, path):
    """Where `path` in `container` lies on the node, through its hostPath mounts; None if not."""
    volumes = {v["name"]: v for v in pod_spec.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        prefix = mount["mountPath"].rstrip("/")
        if path == prefix or path.startswith(prefix + "/"):
            volume = volumes[mount["name"]]
            if "hostPath" not in volume:
                return None
            return posixpath.join(volume["hostPath"]["path"], posixpath.relpath(path, prefix))
    return None


def container_path(pod_spec, container, node_path):
    """Where the node's `node_path` lies in `container`, through its hostPath mounts; or None."""
    volumes = {v["name"]: v for v in pod_spec.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        host = volumes[mount["name"]].get("hostPath", {}).get("path", "").rstrip("/")
        if host and (node_path == host or node_path.startswith(host + "/")):
            return posixpath.join(mount["mountPath"], posixpath.relpath(node_path, host))
    return None


def mount_of(container, path):
    for mount in container.get("volumeMounts", []):
        if path.startswith(mount["mountPath"].rstrip("/") + "/"):
            return mount
    return None


def walk(node, key):
    """Every value of `key` anywhere under `node`."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key:
                yield v
            yield from walk(v, key)
    elif isinstance(node, list):
        for item in node:
            yield from walk(item, key)


class ManifestsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemonset = one_of_kind(load("protond-daemonset.yaml"), "DaemonSet")
        cls.daemon_pod = cls.daemonset["spec"]["template"]["spec"]
        cls.protond = next(c for c in cls.daemon_pod["containers"] if c["name"] == "protond")
        cls.install = next(c for c in cls.daemon_pod["initContainers"]
                           if c["name"] == "install-shim")
        cls.training = one_of_kind(load("training-pod-snippet.yaml"), "Pod")
        cls.training_pod = cls.training["spec"]
        cls.train = cls.training_pod["containers"][0]
        cls.env = {e["name"]: e for e in cls.train["env"]}
        cls.socket = flag(cls.protond["args"], "--socket")

    def test_the_socket_is_the_same_file_on_the_node_for_both(self):
        self.assertEqual(self.env["PROTOND_SOCKET"]["value"], self.socket)
        daemon_side = host_path(self.daemon_pod, self.protond, self.socket)
        self.assertIsNotNone(daemon_side, "protond's socket is not on a hostPath")
        self.assertEqual(host_path(self.training_pod, self.train, self.socket), daemon_side)

    def test_the_preloaded_shim_is_where_the_init_container_copies_it(self):
        preload = self.env["LD_PRELOAD"]["value"]
        self.assertEqual(posixpath.basename(preload), SHIM)
        on_node = host_path(self.training_pod, self.train, preload)
        self.assertIsNotNone(on_node, "LD_PRELOAD is not on a hostPath")
        installed = container_path(self.daemon_pod, self.install, on_node)
        self.assertIsNotNone(installed, "the init container does not mount the shim's hostPath")
        script = "\n".join(self.install["command"])
        # The image's shim into the directory LD_PRELOAD names, and the libraries its RPATH
        # ($ORIGIN/../lib) finds into lib/ beside it.
        shim_dir = posixpath.dirname(installed)
        lib_dir = posixpath.join(posixpath.dirname(shim_dir), "lib")
        self.assertIn(f"for f in /opt/protond/bin/libprotond_*.so; do install_file \"$f\" "
                      f"{shim_dir};", script)
        self.assertIn(f"for f in /opt/protond/lib/*; do install_file \"$f\" {lib_dir};", script)
        # Written beside and renamed over: a running program keeps its mapped copy intact.
        self.assertIn("mv -f", script)

    def test_the_shim_is_not_under_run(self):
        # /run is often mounted noexec: a library there cannot be preloaded.
        on_node = host_path(self.training_pod, self.train, self.env["LD_PRELOAD"]["value"])
        self.assertFalse(on_node.startswith("/run/"), on_node)

    def test_the_training_pod_mounts_read_only_and_starts_no_daemon(self):
        for mount in self.train["volumeMounts"]:
            self.assertTrue(mount["readOnly"], mount["name"])
        self.assertEqual(self.env["PROTOND_AUTOSTART"]["value"], "0")
        for key in ("hostPID", "hostNetwork", "hostIPC"):
            self.assertNotIn(key, self.training_pod)

    def test_the_pod_is_named_from_the_downward_api(self):
        self.assertEqual(self.env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"],
                         "metadata.name")
        self.assertEqual(self.env["POD_NAMESPACE"]["valueFrom"]["fieldRef"]["fieldPath"],
                         "metadata.namespace")

    def test_the_store_is_on_its_own_volume(self):
        state_dir = flag(self.protond["args"], "--state-dir")
        mount = next(m for m in self.protond["volumeMounts"] if m["mountPath"] == state_dir)
        self.assertNotEqual(mount["name"], mount_of(self.protond, self.socket)["name"])

    def test_probes_ask_protonctl_at_the_socket(self):
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            command = self.protond[probe]["exec"]["command"]
            self.assertTrue(command[0].endswith("/protonctl"), command)
            self.assertEqual(flag(command, "--socket"), self.socket, probe)

    def test_the_metrics_port_is_the_one_protond_listens_at(self):
        listen = flag(self.protond["args"], "--metrics-listen")
        port = next(p for p in self.protond["ports"] if p["name"] == "metrics")
        self.assertEqual(int(listen.rsplit(":", 1)[1]), port["containerPort"])

    def test_resources_are_requested_and_limited(self):
        resources = self.protond["resources"]
        for kind in ("requests", "limits"):
            self.assertEqual(set(resources[kind]), {"cpu", "memory"}, kind)

    def test_no_more_privilege_than_needed(self):
        for doc in (self.daemonset, self.training):
            self.assertNotIn(True, list(walk(doc, "privileged")))
        self.assertTrue(self.daemon_pod["hostPID"])
        self.assertFalse(self.daemon_pod["automountServiceAccountToken"])
        for key in ("hostNetwork", "hostIPC"):
            self.assertNotIn(key, self.daemon_pod)
        for container in self.daemon_pod["containers"] + self.daemon_pod["initContainers"]:
            context = container["securityContext"]
            self.assertFalse(context["allowPrivilegeEscalation"], container["name"])
            self.assertTrue(context["readOnlyRootFilesystem"], container["name"])
            self.assertEqual(context["capabilities"]["drop"], ["ALL"], container["name"])
            self.assertLessEqual(set(context["capabilities"].get("add", [])),
                                 ALLOWED_CAPABILITIES, container["name"])


def main():
    try:
        import yaml  # noqa: F401
    except ImportError:
        print("skipped: PyYAML is not installed (Debian's python3-yaml; scripts/install-deps.sh "
              "installs it): the manifests were not checked")
        return SKIPPED
    result = unittest.main(exit=False, argv=[sys.argv[0], "-v"]).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
