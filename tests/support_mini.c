/* A small IQM file built byte by byte from docs/formats/iqm.md, without the
 * library, for tests that need a valid file to break one field of. */
#include "support.h"

#include <string.h>

static uint32_t mini_at(ts_mini *m, size_t align)
{
    while (m->size % align) m->size++;
    return (uint32_t)m->size;
}

static unsigned char *mini_push(ts_mini *m, size_t n)
{
    unsigned char *p = m->b + m->size;
    m->size += n;
    assert_true(m->size <= sizeof m->b);
    return p;
}

static void put_floats(unsigned char *p, const float *v, int n)
{
    for (int i = 0; i < n; i++) ts_putf32(p + 4 * i, v[i]);
}

void ts_mini_build(ts_mini *m, int version)
{
    memset(m, 0, sizeof *m);
    unsigned char *h = mini_push(m, TS_IQM_HEADER_SIZE);
    static const char text[] = "\0mesh\0mat\0root\0child\0wave\0ext"; /* 30 bytes with the NUL */
    m->text = mini_at(m, 4);
    memcpy(mini_push(m, sizeof text), text, sizeof text);
    m->num_text = mini_at(m, 4) - m->text;

    m->meshes = mini_at(m, 4);
    unsigned char *p = mini_push(m, 24);
    const uint32_t mesh[6] = {TS_MINI_MESH, TS_MINI_MAT, 0, 4, 0, 2};
    for (int i = 0; i < 6; i++) ts_put32(p + 4 * i, mesh[i]);

    m->arrays = mini_at(m, 4);
    unsigned char *va = mini_push(m, 3 * 20);
    const uint32_t types[3][3] = {{0, 7, 3}, {4, 1, 4}, {5, 1, 4}};
    uint32_t data = mini_at(m, 8);
    const float pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    put_floats(mini_push(m, 48), pos, 12);
    const uint8_t blend[2][16] = {{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0},
                                  {255, 0, 0, 0, 255, 0, 0, 0, 128, 127, 0, 0, 255, 0, 0, 0}};
    memcpy(mini_push(m, 16), blend[0], 16);
    memcpy(mini_push(m, 16), blend[1], 16);
    const uint32_t data_ofs[3] = {data, data + 48, data + 64};
    for (int i = 0; i < 3; i++) {
        ts_put32(va + 20 * i, types[i][0]);
        ts_put32(va + 20 * i + 8, types[i][1]);
        ts_put32(va + 20 * i + 12, types[i][2]);
        ts_put32(va + 20 * i + 16, data_ofs[i]);
    }

    m->triangles = mini_at(m, 4);
    const uint32_t tris[6] = {0, 1, 2, 1, 3, 2};
    p = mini_push(m, 24);
    for (int i = 0; i < 6; i++) ts_put32(p + 4 * i, tris[i]);
    uint32_t adjacency = mini_at(m, 4);
    const uint32_t adj[6] = {UINT32_MAX, 1, UINT32_MAX, UINT32_MAX, UINT32_MAX, 0};
    p = mini_push(m, 24);
    for (int i = 0; i < 6; i++) ts_put32(p + 4 * i, adj[i]);

    /* Joints: root at (1,2,3), identity rotation as (0,0,0,-1); child at
     * (0,1,0), rotation (0.6,0,0,-0.8), scale 2. v1 drops w. */
    m->joints = mini_at(m, 4);
    const float jt[2][10] = {{1, 2, 3, 0, 0, 0, -1, 1, 1, 1},
                             {0, 1, 0, 0.6f, 0, 0, -0.8f, 2, 2, 2}};
    for (int j = 0; j < 2; j++) {
        p = mini_push(m, version == 1 ? 44 : 48);
        ts_put32(p, j ? TS_MINI_CHILD : TS_MINI_ROOT);
        ts_put32(p + 4, j ? 0 : UINT32_MAX);
        put_floats(p + 8, jt[j], 3);
        put_floats(p + 20, jt[j] + 3, version == 1 ? 3 : 4);
        put_floats(p + (version == 1 ? 32 : 36), jt[j] + 7, 3);
    }

    /* Poses: root animates Tx (scale 0.5) and Qz (0.001); child Ty (0.25)
     * and Sx (0.125), which is channel 7 in v2 and 6 in v1. */
    m->poses = mini_at(m, 4);
    int nch = version == 1 ? 9 : 10, sx = version == 1 ? 6 : 7;
    for (int j = 0; j < 2; j++) {
        float offset[10], scale[10] = {0};
        for (int k = 0, src = 0; k < nch; k++, src++) {
            if (version == 1 && k == 6) src = 7; /* skip w */
            offset[k] = jt[j][src];
        }
        uint32_t mask = j ? (1u << 1 | 1u << sx) : (1u << 0 | 1u << 5);
        if (j) {
            scale[1] = 0.25f;
            scale[sx] = 0.125f;
        } else {
            scale[0] = 0.5f;
            scale[5] = 0.001f;
        }
        p = mini_push(m, version == 1 ? 80 : 88);
        ts_put32(p, j ? 0 : UINT32_MAX);
        ts_put32(p + 4, mask);
        put_floats(p + 8, offset, nch);
        put_floats(p + 8 + 4 * nch, scale, nch);
    }

    m->anims = mini_at(m, 4);
    p = mini_push(m, 20);
    ts_put32(p, TS_MINI_WAVE);
    ts_put32(p + 8, 3);
    ts_putf32(p + 12, 10);
    ts_put32(p + 16, 1);

    /* Frame f: root Tx = 1 + f, Qz = 0.1 f; child Ty = 1 + 0.25 f, Sx = 2 + f. */
    m->frames = mini_at(m, 4);
    for (uint16_t f = 0; f < 3; f++) {
        const uint16_t s[4] = {(uint16_t)(2 * f), (uint16_t)(100 * f), f, (uint16_t)(8 * f)};
        p = mini_push(m, 8);
        for (int i = 0; i < 4; i++) ts_put16(p + 2 * i, s[i]);
    }
    uint32_t bounds = mini_at(m, 4);
    for (int f = 0; f < 3; f++) {
        const float bb[8] = {(float)-f, -1, -1, (float)f + 1, 2, 3, 4, 5};
        put_floats(mini_push(m, 32), bb, 8);
    }
    uint32_t comment = mini_at(m, 4);
    memcpy(mini_push(m, 6), "hello", 6);
    uint32_t num_comment = mini_at(m, 4) - comment;

    m->ext = mini_at(m, 4);
    p = mini_push(m, 16);
    ts_put32(p, TS_MINI_EXT);
    ts_put32(p + 4, 4);
    ts_put32(p + 8, m->ext + 16);
    memcpy(mini_push(m, 4), "DATA", 4);

    memcpy(h, "INTERQUAKEMODEL", 16);
    const uint32_t fields[][2] = {
        {TS_IQM_VERSION, (uint32_t)version},
        {TS_IQM_FILESIZE, (uint32_t)m->size},
        {TS_IQM_NUM_TEXT, m->num_text},
        {TS_IQM_OFS_TEXT, m->text},
        {TS_IQM_NUM_MESHES, 1},
        {TS_IQM_OFS_MESHES, m->meshes},
        {TS_IQM_NUM_VERTEXARRAYS, 3},
        {TS_IQM_NUM_VERTEXES, 4},
        {TS_IQM_OFS_VERTEXARRAYS, m->arrays},
        {TS_IQM_NUM_TRIANGLES, 2},
        {TS_IQM_OFS_TRIANGLES, m->triangles},
        {TS_IQM_OFS_ADJACENCY, adjacency},
        {TS_IQM_NUM_JOINTS, 2},
        {TS_IQM_OFS_JOINTS, m->joints},
        {TS_IQM_NUM_POSES, 2},
        {TS_IQM_OFS_POSES, m->poses},
        {TS_IQM_NUM_ANIMS, 1},
        {TS_IQM_OFS_ANIMS, m->anims},
        {TS_IQM_NUM_FRAMES, 3},
        {TS_IQM_NUM_FRAMECHANNELS, 4},
        {TS_IQM_OFS_FRAMES, m->frames},
        {TS_IQM_OFS_BOUNDS, bounds},
        {TS_IQM_NUM_COMMENT, num_comment},
        {TS_IQM_OFS_COMMENT, comment},
        {TS_IQM_NUM_EXTENSIONS, 1},
        {TS_IQM_OFS_EXTENSIONS, m->ext},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        ts_put32(h + fields[i][0], fields[i][1]);
}
