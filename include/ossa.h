/*
 * ossa — skeletal animated models: read, write, convert, sample, render.
 *
 * This header includes all of ossa's: include only the one a program
 * needs, and link only its library:
 *
 *   ossa/model.h    the model; reading, writing, converting     pkg-config ossa
 *   ossa/runtime.h  clips, sampling, blending, skinning          pkg-config ossa-runtime
 *   ossa/render.h   pictures of a posed model (PNG, GIF)         pkg-config ossa-render
 *
 * (ossa/common.h, which each includes, holds what they share.)
 */
#ifndef OSSA_H
#define OSSA_H

#include "ossa/common.h"
#include "ossa/model.h"
#include "ossa/render.h"
#include "ossa/runtime.h"

#endif /* OSSA_H */
