#include <gtest/gtest.h>
#include <metis.h>
#include <absl/container/flat_hash_map.h>
#include <boost/graph/compressed_sparse_row_graph.hpp>
TEST(Smoke, Links) {
  absl::flat_hash_map<int,int> m; m[1]=2; EXPECT_EQ(m[1],2);
  idx_t opts[METIS_NOPTIONS]; EXPECT_EQ(METIS_SetDefaultOptions(opts), METIS_OK);
}
