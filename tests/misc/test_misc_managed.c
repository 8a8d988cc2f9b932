#include <criterion/criterion.h>
Test(placeholder_managed, empty) { cr_assert(1); }
