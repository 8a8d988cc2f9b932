// Where HIP graphs follow AMD's runtime (clr hipamd/src/hip_graph*.cpp) rather than leaving the
// behaviour undefined: late calls on destroyed user objects, memcpy node directions, flags, kernel
// node attributes and update results. Every check reads back a value or an error code.
#include "graph_check.h"

static int destroyed;
static void destroy_counter(void *p) { destroyed += *(int *)p; }

// clr tolerates calls on a user object that is already destroyed and releases of more references
// than the object has: they succeed and change nothing.
static void user_objects_late_calls()
{
  int weight = 1;
  destroyed = 0;
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipUserObject_t obj;
  CHECK_HIP(hipUserObjectCreate(&obj, &weight, destroy_counter, 1, hipUserObjectNoDestructorSync));
  CHECK_HIP(hipGraphRetainUserObject(g, obj, 1, hipGraphUserObjectMove)); // graph holds the 1
  CHECK_HIP(hipGraphReleaseUserObject(g, obj, 1));                        // 0: destroyed
  CHECK(destroyed == 1);
  CHECK_HIP(hipUserObjectRelease(obj, 1));     // already destroyed: nothing happens
  CHECK_HIP(hipUserObjectRetain(obj, 1));
  CHECK_HIP(hipGraphRetainUserObject(g, obj, 1, 0));
  CHECK_HIP(hipGraphReleaseUserObject(g, obj, 1));
  CHECK(destroyed == 1);

  // A graph given more references (Move) than the object has; over-releases are ignored.
  CHECK_HIP(hipUserObjectCreate(&obj, &weight, destroy_counter, 1, hipUserObjectNoDestructorSync));
  CHECK_HIP(hipGraphRetainUserObject(g, obj, 2, hipGraphUserObjectMove)); // object 1, graph 2
  CHECK_HIP(hipGraphReleaseUserObject(g, obj, 4));                        // more than 1: ignored
  CHECK_HIP(hipUserObjectRelease(obj, 2));                                // ignored
  CHECK(destroyed == 1);
  CHECK_HIP(hipGraphReleaseUserObject(g, obj, 1));                        // 0: destroyed
  CHECK(destroyed == 2);

  // The user drops every reference while a graph and its clone hold some: the object dies once,
  // and destroying the graphs afterwards touches nothing.
  CHECK_HIP(hipUserObjectCreate(&obj, &weight, destroy_counter, 3, hipUserObjectNoDestructorSync));
  CHECK_HIP(hipGraphRetainUserObject(g, obj, 2, hipGraphUserObjectMove)); // object 3, graph 2
  hipGraph_t c;
  CHECK_HIP(hipGraphClone(&c, g));                                         // object 5
  CHECK_HIP(hipUserObjectRelease(obj, 5));                                 // 0: destroyed
  CHECK(destroyed == 3);
  CHECK_HIP(hipGraphReleaseUserObject(c, obj, 2));
  CHECK_HIP(hipGraphDestroy(c));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK(destroyed == 3);

  // Still errors: null handles, zero counts, a pointer that never was a user object.
  CHECK_HIP(hipGraphCreate(&g, 0));
  EXPECT_HIP(hipGraphReleaseUserObject(g, nullptr, 1), hipErrorInvalidValue);
  EXPECT_HIP(hipUserObjectRelease(nullptr, 1), hipErrorInvalidValue);
  EXPECT_HIP(hipUserObjectRetain(obj, 0), hipErrorInvalidValue);
  EXPECT_HIP(hipUserObjectRelease((hipUserObject_t)&weight, 1), hipErrorInvalidResourceHandle);
  CHECK_HIP(hipGraphDestroy(g));
}

int main()
{
  user_objects_late_calls();
  printf("PASSED\n");
  return 0;
}
