package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// route is OpenShift's route.openshift.io/v1 Route, as far as
// deploy/openshift/route.yaml uses it (k8s.io/api does not have it):
// decoded strictly, a field it does not declare fails.
type route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Host string `json:"host,omitempty"`
		To   struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"to"`
		Port struct {
			TargetPort string `json:"targetPort"`
		} `json:"port"`
		TLS struct {
			Termination                   string `json:"termination"`
			InsecureEdgeTerminationPolicy string `json:"insecureEdgeTerminationPolicy"`
		} `json:"tls"`
	} `json:"spec"`
}

// manifests decodes every document of the manifest files strictly
// (sigs.k8s.io/yaml.UnmarshalStrict: unknown or duplicate fields fail)
// into the Kubernetes API type its apiVersion and kind name.
type manifests struct {
	pvcs        map[string]*corev1.PersistentVolumeClaim
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	ingresses   []*networkingv1.Ingress
	routes      []*route
}

func readManifests(t *testing.T, files ...string) manifests {
	t.Helper()
	m := manifests{pvcs: map[string]*corev1.PersistentVolumeClaim{}}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range strings.Split(string(raw), "\n---\n") {
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
				t.Fatalf("%s, document %d: %v", file, i+1, err)
			}
			var into any
			switch tm.APIVersion + " " + tm.Kind {
			case "v1 PersistentVolumeClaim":
				into = &corev1.PersistentVolumeClaim{}
			case "apps/v1 Deployment":
				v := &appsv1.Deployment{}
				into, m.deployments = v, append(m.deployments, v)
			case "v1 Service":
				v := &corev1.Service{}
				into, m.services = v, append(m.services, v)
			case "networking.k8s.io/v1 Ingress":
				v := &networkingv1.Ingress{}
				into, m.ingresses = v, append(m.ingresses, v)
			case "route.openshift.io/v1 Route":
				v := &route{}
				into, m.routes = v, append(m.routes, v)
			default:
				t.Fatalf("%s, document %d: unexpected %s %s", file, i+1, tm.APIVersion, tm.Kind)
			}
			if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
				t.Fatalf("%s, document %d (%s): %v", file, i+1, tm.Kind, err)
			}
			if v, ok := into.(*corev1.PersistentVolumeClaim); ok {
				m.pvcs[v.Name] = v
			}
		}
	}
	return m
}

// The Kubernetes and OpenShift manifests decode strictly into the API
// types, and their parts fit: the Deployment mounts the results claim at
// the data directory, takes the token from a Secret, probes /api/version
// on the port it listens on, sets only variables of the environment
// catalog (at their catalog values, but the token); the Service selects
// its pods and the Ingress and Route lead to the Service's port.
func TestLeaderboardManifests(t *testing.T) {
	t.Parallel()
	m := readManifests(t, "../../deploy/kubernetes/leaderboard.yaml", "../../deploy/openshift/route.yaml")
	if len(m.deployments) != 1 || len(m.services) != 1 || len(m.ingresses) != 1 || len(m.routes) != 1 || len(m.pvcs) != 2 {
		t.Fatalf("want one each of Deployment, Service, Ingress and Route, and two PersistentVolumeClaims (results, user models): %+v", m)
	}
	dep, svc := m.deployments[0], m.services[0]
	_, catalog := envCatalog(t)
	pod := dep.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := pod.Containers[0]
	if *dep.Spec.Replicas != 1 || dep.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("replicas %d, strategy %s: the results volume has one writer (1, Recreate)", *dep.Spec.Replicas, dep.Spec.Strategy.Type)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
		if _, ok := catalog[e.Name]; !ok {
			t.Errorf("the Deployment sets %s, which deploy/leaderboard.env does not list", e.Name)
		} else if e.Name != "LEADERBOARD_TOKEN" && e.Value != catalog[e.Name] {
			t.Errorf("the Deployment sets %s=%s, the catalog's default is %s", e.Name, e.Value, catalog[e.Name])
		}
	}
	if tok := env["LEADERBOARD_TOKEN"]; tok.Value != "" || tok.ValueFrom == nil || tok.ValueFrom.SecretKeyRef == nil || tok.ValueFrom.SecretKeyRef.Name == "" {
		t.Errorf("LEADERBOARD_TOKEN %+v: want it from a Secret, never a value", tok)
	}
	port := ""
	for _, p := range c.Ports {
		if ":"+strconv.Itoa(int(p.ContainerPort)) == catalog["LEADERBOARD_ADDR"] {
			port = p.Name
		}
	}
	if port == "" {
		t.Fatalf("no container port is the one LEADERBOARD_ADDR=%s listens on: %+v", catalog["LEADERBOARD_ADDR"], c.Ports)
	}
	for name, p := range map[string]*corev1.Probe{"startup": c.StartupProbe, "readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/api/version" || p.HTTPGet.Port.String() != port {
			t.Errorf("the %s probe %+v: want GET /api/version on port %s", name, p, port)
		}
	}
	mounted := map[string]string{} // volume → path
	for _, vm := range c.VolumeMounts {
		mounted[vm.Name] = vm.MountPath
	}
	// Each claim is mounted where the catalog's variable puts its files.
	at := map[string]string{} // mount path → claim
	for _, v := range pod.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		if m.pvcs[v.PersistentVolumeClaim.ClaimName] == nil {
			t.Errorf("volume %s claims %s, which no manifest declares", v.Name, v.PersistentVolumeClaim.ClaimName)
		}
		at[mounted[v.Name]] = v.PersistentVolumeClaim.ClaimName
	}
	for _, dir := range []string{"LEADERBOARD_DATA", "LEADERBOARD_USER_MODELS"} {
		if at[catalog[dir]] == "" || env[dir].Value != catalog[dir] {
			t.Errorf("%s=%s: no claim is mounted there (mounts: %v; the Deployment sets %q)", dir, catalog[dir], at, env[dir].Value)
		}
	}
	if len(pod.Volumes) != 2 || at[catalog["LEADERBOARD_DATA"]] == at[catalog["LEADERBOARD_USER_MODELS"]] {
		t.Errorf("volumes %v: want the results claim and the user models' claim, apart", at)
	}
	for k, v := range svc.Spec.Selector {
		if dep.Spec.Template.Labels[k] != v || dep.Spec.Selector.MatchLabels[k] != v {
			t.Errorf("the Service selects %s=%s, the pods are labelled %v", k, v, dep.Spec.Template.Labels)
		}
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.String() != port {
		t.Fatalf("the Service's ports %+v: want one to the container port %s", svc.Spec.Ports, port)
	}
	backend := m.ingresses[0].Spec.Rules[0].HTTP.Paths[0].Backend.Service
	if backend.Name != svc.Name || backend.Port.Name != svc.Spec.Ports[0].Name {
		t.Errorf("the Ingress leads to %s:%s, want the Service %s:%s", backend.Name, backend.Port.Name, svc.Name, svc.Spec.Ports[0].Name)
	}
	if r := m.routes[0]; r.Spec.To.Kind != "Service" || r.Spec.To.Name != svc.Name || r.Spec.Port.TargetPort != port {
		t.Errorf("the Route leads to %s %s:%s, want the Service %s:%s", r.Spec.To.Kind, r.Spec.To.Name, r.Spec.Port.TargetPort, svc.Name, port)
	}
}
